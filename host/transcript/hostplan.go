package transcript

import (
	"strconv"
	"strings"

	"github.com/ctxgit/ctxgit/spec"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
)

// maxPlanSteps bounds a host plan, as plan.steps is bounded (SPEC §8.5).
const maxPlanSteps = 50

// planTools are the host tools that write the agent's plan, and how each names
// a step's text (docs/HOSTS.md, "Transcripts", "Host plans"): Claude Code's
// TodoWrite {todos: [{content, status, activeForm}]}, Codex's update_plan
// {plan: [{step, status}]}, Gemini CLI's write_todos {todos: [{description,
// status}]}, Qwen Code's todo_write and opencode's todowrite {todos: [{id,
// content, status}]}. Each
// call carries the whole list, so the newest call is the plan.
var planTools = map[string]struct{ list, text string }{
	"TodoWrite":   {"todos", "content"},
	"update_plan": {"plan", "step"},
	"write_todos": {"todos", "description"},
	"todo_write":  {"todos", "content"},
	"todowrite":   {"todos", "content"},
}

// hostStatus maps a host's step status to the checkpoint's.
func hostStatus(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "completed", "complete", "done", "resolved":
		return spec.HostStepDone
	case "in_progress", "in-progress", "active":
		return spec.HostStepInProgress
	case "cancelled", "canceled", "deleted":
		return spec.HostStepCancelled
	}
	return spec.HostStepPending
}

// planCall reads a call of one of the host's plan tools; input is the
// call's arguments (an object, or a string holding one).
func (st *state) planCall(tool string, input []byte) {
	if jsonscan.IsString(input) {
		input = []byte(jsonscan.StrOr(input))
	}
	if keys, ok := planTools[tool]; ok {
		p := &spec.HostPlan{Tool: tool, Steps: []spec.HostPlanStep{}}
		e := jsonscan.ArrayElements(jsonscan.Field(input, keys.list))
		for el := range e.All() {
			if len(p.Steps) == maxPlanSteps {
				break
			}
			text := strings.TrimSpace(jsonscan.StrOr(jsonscan.Field(el, keys.text)))
			if text == "" {
				continue
			}
			p.Steps = append(p.Steps, spec.HostPlanStep{Text: spec.Text(oneLine(text, gistChars)), Status: hostStatus(jsonscan.StrOr(jsonscan.Field(el, "status")))})
		}
		if e.Failed() {
			return
		}
		st.plan = p
		return
	}
	switch tool {
	case "update_todo":
		// GitHub Copilot CLI's update_todo {todos: "- [ ] step\n- [x] step"}:
		// a markdown checklist, the whole list each call.
		if list := jsonscan.Field(input, "todos"); jsonscan.IsString(list) {
			st.plan = checklistPlan(tool, jsonscan.StrOr(list))
		}
	case "TaskCreate":
		// Claude Code's task tools build the list a call at a time; tasks
		// are numbered from 1 in the order they are created.
		subject := strings.TrimSpace(jsonscan.StrOr(jsonscan.Field(input, "subject")))
		if subject == "" {
			return
		}
		if st.plan == nil || st.plan.Tool != "TaskCreate" {
			st.plan, st.taskIDs = &spec.HostPlan{Tool: "TaskCreate", Steps: []spec.HostPlanStep{}}, nil
		}
		st.nextTask++
		if len(st.plan.Steps) < maxPlanSteps {
			st.plan.Steps = append(st.plan.Steps, spec.HostPlanStep{Text: spec.Text(oneLine(subject, gistChars)), Status: spec.HostStepPending})
			st.taskIDs = append(st.taskIDs, strconv.Itoa(st.nextTask))
		}
	case "TaskUpdate":
		if st.plan == nil || st.plan.Tool != "TaskCreate" {
			return
		}
		id := jsonscan.StrOr(jsonscan.Field(input, "taskId"))
		if id == "" {
			if n, ok := jsonscan.Num(jsonscan.Field(input, "taskId")); ok {
				id = strconv.FormatInt(n, 10)
			}
		}
		for i, tid := range st.taskIDs {
			if tid != id {
				continue
			}
			if s := jsonscan.Field(input, "status"); jsonscan.IsString(s) {
				st.plan.Steps[i].Status = hostStatus(jsonscan.StrOr(s))
			}
			if s := strings.TrimSpace(jsonscan.StrOr(jsonscan.Field(input, "subject"))); s != "" {
				st.plan.Steps[i].Text = spec.Text(oneLine(s, gistChars))
			}
		}
	}
}

// checklistPlan reads a markdown checklist, as Copilot CLI's update_todo
// reads it (its runtime's pattern: a list marker, then "[ ]", "[x]", or
// "[-]", "[~]", "[/]" for a step under way): lines of any other shape are
// not steps.
func checklistPlan(tool, list string) *spec.HostPlan {
	p := &spec.HostPlan{Tool: tool, Steps: []spec.HostPlanStep{}}
	for line := range strings.Lines(list) {
		if len(p.Steps) == maxPlanSteps {
			break
		}
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "+ "):
			l = strings.TrimSpace(l[2:])
		default:
			i := strings.IndexFunc(l, func(r rune) bool { return r < '0' || r > '9' })
			if i <= 0 || i+1 >= len(l) || l[i] != '.' && l[i] != ')' {
				continue
			}
			l = strings.TrimSpace(l[i+1:])
		}
		if len(l) < 3 || l[0] != '[' || l[2] != ']' {
			continue
		}
		status := spec.HostStepInProgress
		switch l[1] {
		case ' ':
			status = spec.HostStepPending
		case 'x', 'X':
			status = spec.HostStepDone
		case '-', '~', '/':
		default:
			continue
		}
		if text := strings.TrimSpace(l[3:]); text != "" {
			p.Steps = append(p.Steps, spec.HostPlanStep{Text: spec.Text(oneLine(text, gistChars)), Status: status})
		}
	}
	return p
}
