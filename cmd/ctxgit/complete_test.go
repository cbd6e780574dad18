package main

import (
	"fmt"
	"os"
	"os/exec"
)

// shellsCondition is the scripts' [shells] condition: CTXGIT_SHELLS is
// set, so completion_shells.txtar checks the completion scripts with the
// real bash, zsh and fish (CI's .ci/run installs them). Plain go test
// ./... needs none of them; with the switch on, a missing shell fails.
func shellsCondition() (bool, error) {
	if os.Getenv("CTXGIT_SHELLS") == "" {
		return false, nil
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if _, err := exec.LookPath(sh); err != nil {
			return false, fmt.Errorf("CTXGIT_SHELLS is set but %s is not installed (apt-get install bash zsh fish)", sh)
		}
	}
	return true, nil
}
