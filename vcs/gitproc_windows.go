package vcs

import (
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// gitProcAttr starts git in a process group of its own
// (CREATE_NEW_PROCESS_GROUP): a console's Ctrl-C then reaches ctxgit,
// which stops git itself, and not git halfway through a ref update.
func gitProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// stopGit stops a git run when ctxgit is interrupted or its timeout
// passes. Windows has no signal to ask a process to clean up and exit, so
// git is killed, as exec.CommandContext does by default; closing its job
// object (runGit) ends the helpers it started.
func stopGit(cmd *exec.Cmd) error { return cmd.Process.Kill() }

// killGroup: the job object's close in runGit ends what is left.
func killGroup(*exec.Cmd) {}

// runGit runs git inside a job object that bounds the memory of git and
// every process it starts (JOB_OBJECT_LIMIT_JOB_MEMORY, unless memory is
// noMemoryLimit) and kills them
// all when its last handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE):
// when git is done, or when ctxgit dies, whatever way.
func runGit(cmd *exec.Cmd, memory uint64) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return cmd.Run()
	}
	defer windows.CloseHandle(job)
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if memory != noMemoryLimit {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_JOB_MEMORY
		info.JobMemoryLimit = uintptr(memory)
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return cmd.Run()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid)); err == nil {
		windows.AssignProcessToJobObject(job, h)
		windows.CloseHandle(h)
	}
	return cmd.Wait()
}
