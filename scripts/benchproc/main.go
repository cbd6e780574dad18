// Command benchproc times whole processes side by side: each case is a
// command run with a file on its stdin, the cases taking turns in every
// round so that the machine's drift hits all of them alike. It prints the
// median wall time of a call per case and its ratio to the first case
// (the anchor), then the same of the CPU time (user + system) the
// process used, which a busy machine's waits do not inflate. Used by
// scripts/bench-hooks.sh and scripts/bench-start.sh.
//
//	benchproc -rounds 15 -calls 40 SPEC
//
// SPEC has one case a line: NAME<TAB>STDIN-FILE<TAB>PROGRAM<TAB>ARG...
// A case whose process exits non-zero, or prints to stderr, stops the run:
// a hook that fails is not a fast hook.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

type benchCase struct {
	name  string
	stdin []byte
	argv  []string
	times []time.Duration
	cpu   []time.Duration
}

func main() {
	rounds := flag.Int("rounds", 15, "rounds; every case runs in each")
	calls := flag.Int("calls", 40, "calls of a case in a round")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchproc [-rounds N] [-calls N] SPEC")
		os.Exit(2)
	}
	cases, err := readSpec(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchproc:", err)
		os.Exit(2)
	}
	for r := 0; r < *rounds; r++ {
		for _, c := range cases {
			for i := 0; i < *calls; i++ {
				d, cpu, err := runOnce(c)
				if err != nil {
					fmt.Fprintf(os.Stderr, "benchproc: %s: %v\n", c.name, err)
					os.Exit(1)
				}
				c.times = append(c.times, d)
				c.cpu = append(c.cpu, cpu)
			}
		}
	}
	anchor, anchorCPU := median(cases[0].times), median(cases[0].cpu)
	fmt.Printf("%-46s %9s %9s %7s %9s %7s\n", "case", "median µs", "p90 µs", "ratio", "cpu µs", "ratio")
	for _, c := range cases {
		m, cpu := median(c.times), median(c.cpu)
		fmt.Printf("%-46s %9d %9d %7.2f %9d %7.2f\n", c.name, m.Microseconds(), pct(c.times, 0.9).Microseconds(), float64(m)/float64(anchor),
			cpu.Microseconds(), float64(cpu)/float64(max(anchorCPU, time.Microsecond)))
	}
}

// runOnce runs c once: its wall time, and its CPU time as the OS
// accounted it.
func runOnce(c *benchCase) (time.Duration, time.Duration, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Stdin = bytes.NewReader(c.stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err == nil && stderr.Len() > 0 {
		err = fmt.Errorf("stderr: %s", strings.TrimSpace(stderr.String()))
	}
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return d, cpu, err
}

func readSpec(path string) ([]*benchCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []*benchCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 3 {
			return nil, fmt.Errorf("%s:%d: want NAME<TAB>STDIN<TAB>PROGRAM[<TAB>ARG...]", path, n)
		}
		in, err := os.ReadFile(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		cases = append(cases, &benchCase{name: fields[0], stdin: in, argv: fields[2:]})
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	return cases, sc.Err()
}

func median(ts []time.Duration) time.Duration { return pct(ts, 0.5) }

func pct(ts []time.Duration, p float64) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}
