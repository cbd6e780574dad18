package spec

// StepStatus is where a plan step stands (SPEC §4.3).
type StepStatus string

// Step statuses, from the marks in SPEC §4.2.
const (
	StepPending    StepStatus = "pending"
	StepInProgress StepStatus = "in_progress"
	StepDone       StepStatus = "done"
	StepFailed     StepStatus = "failed"
)

// Plan is the parsed `.active-plan.md` (SPEC §4).
type Plan struct {
	Title       string   `json:"title,omitempty" yaml:"title,omitempty"`
	Goal        string   `json:"goal,omitempty" yaml:"goal,omitempty"`
	DoneWhen    string   `json:"done_when,omitempty" yaml:"done_when,omitempty"`
	Assumptions []string `json:"assumptions,omitempty" yaml:"assumptions,omitempty"`
	// PendingAssumptions are the assumptions not marked verified (✅,
	// [verified] or (verified)).
	PendingAssumptions []string `json:"pending_assumptions,omitempty" yaml:"pending_assumptions,omitempty"`
	Steps              []Step   `json:"steps" yaml:"steps"`
	// OpenItems are the not-done items of a section whose heading is
	// "Open items" or "Open questions" (SPEC §4.4).
	OpenItems []string `json:"open_items,omitempty" yaml:"open_items,omitempty"`
	// Sections lists every heading in document order, known or not, so a
	// reader can see nothing was dropped.
	Sections []Section `json:"sections,omitempty" yaml:"sections,omitempty"`
}

// Section is a heading of the plan and the line it starts on.
type Section struct {
	Heading string `json:"heading" yaml:"heading"`
	Level   int    `json:"level" yaml:"level"`
	Line    int    `json:"line" yaml:"line"`
}

// Step is one item of the plan's steps list.
type Step struct {
	// Number is the step's label: "3", "3b", or the 1-based position for a
	// task-list item without one.
	Number      string     `json:"number" yaml:"number"`
	Name        string     `json:"name" yaml:"name"`
	Description string     `json:"description,omitempty" yaml:"description,omitempty"`
	Status      StepStatus `json:"status" yaml:"status"`
	// FailReason is the text of a [FAILED: reason] mark.
	FailReason string `json:"fail_reason,omitempty" yaml:"fail_reason,omitempty"`
	// PivotTo is the target of "→ pivoted to step 3b".
	PivotTo string `json:"pivot_to,omitempty" yaml:"pivot_to,omitempty"`
	// Was is the text of a "(was: step 3)" mark.
	Was string `json:"was,omitempty" yaml:"was,omitempty"`
	// Subitems are the step's nested bullet texts.
	Subitems []string `json:"subitems,omitempty" yaml:"subitems,omitempty"`
	// Line is the 1-based line of the step's first line in the file.
	Line int `json:"line" yaml:"line"`
}

// Title renders the step as one line: "3. Name — description".
func (s Step) Title() string {
	t := s.Number + ". " + s.Name
	if s.Description != "" {
		t += " — " + s.Description
	}
	return t
}

// Current returns the step being worked on: the first in progress, else the
// first pending (SPEC §4.3). It returns nil when every step is done or failed.
func (p *Plan) Current() *Step {
	for i := range p.Steps {
		if p.Steps[i].Status == StepInProgress {
			return &p.Steps[i]
		}
	}
	for i := range p.Steps {
		if p.Steps[i].Status == StepPending {
			return &p.Steps[i]
		}
	}
	return nil
}

// Progress counts done steps and all steps.
func (p *Plan) Progress() (done, total int) {
	for _, s := range p.Steps {
		if s.Status == StepDone {
			done++
		}
	}
	return done, len(p.Steps)
}

// FindStep returns the step with the given number ("3", "3b"), or nil.
func (p *Plan) FindStep(number string) *Step {
	for i := range p.Steps {
		if p.Steps[i].Number == number {
			return &p.Steps[i]
		}
	}
	return nil
}
