package vcs

import "golang.org/x/sys/unix"

// pseudoFileSystems are the kernel's synthetic file systems: their files
// report size 0 (or 4096) whatever they yield, some never end
// (/proc/kmsg), and reading some has effects. Nothing in them is a
// workspace's content.
var pseudoFileSystems = map[uint32]string{
	unix.PROC_SUPER_MAGIC:    "proc",
	unix.SYSFS_MAGIC:         "sysfs",
	unix.DEBUGFS_MAGIC:       "debugfs",
	unix.TRACEFS_MAGIC:       "tracefs",
	unix.CGROUP_SUPER_MAGIC:  "cgroup",
	unix.CGROUP2_SUPER_MAGIC: "cgroup2",
	unix.SECURITYFS_MAGIC:    "securityfs",
	unix.SELINUX_MAGIC:       "selinuxfs",
	unix.BPF_FS_MAGIC:        "bpf",
	unix.PSTOREFS_MAGIC:      "pstore",
	unix.EFIVARFS_MAGIC:      "efivarfs",
	unix.DEVPTS_SUPER_MAGIC:  "devpts",
	unix.BINFMTFS_MAGIC:      "binfmt_misc",
	0x62656570:               "configfs",
	0x65735543:               "fusectl",
}

// pseudoFS names the pseudo file system the open directory fd is on, or
// "" for a real one.
func pseudoFS(fd int) string {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return ""
	}
	return pseudoFileSystems[uint32(st.Type)]
}
