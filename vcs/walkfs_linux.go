package vcs

import (
	"encoding/binary"
	"io/fs"
	"sync"

	"golang.org/x/sys/unix"
)

// withFile is the directory as it is: Linux lists the descriptor itself,
// and an *os.File would cost an fcntl per directory.
func withFile(d openedDir) openedDir { return d }

// direntBufs are getdents buffers, one per walking goroutine at a time.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists the directory with getdents64 on its descriptor: no
// *os.File (an fcntl and a failed epoll registration per directory) and
// no allocation per entry, the names being substrings of one string per
// batch. An entry whose type the file system does not report is lstatted.
func (d openedDir) readDir() ([]dirent, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []dirent
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, &fs.PathError{Op: "readdirent", Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		batch := string(buf[:n])
		if out == nil {
			out = make([]dirent, 0, n/32) // a record is 24 bytes and a name
		}
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				break
			}
			name := batch[off+19 : off+reclen]
			for i := 0; i < len(name); i++ {
				if name[i] == 0 {
					name = name[:i]
					break
				}
			}
			typ := buf[off+18]
			off += reclen
			if name == "." || name == ".." {
				continue
			}
			mode, ok := direntMode(typ)
			if !ok {
				var st unix.Stat_t
				if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue // gone since it was listed
				}
				mode = statMode(st.Mode)
			}
			out = append(out, dirent{name: name, typ: mode})
		}
	}
}

// direntMode is the type bits of a d_type; false for DT_UNKNOWN.
func direntMode(t uint8) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

func statMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	}
	return fs.ModeDevice
}

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

// dirTimesTrusted are the local file systems whose directory mtime and
// ctime change, in nanoseconds from the kernel's clock, whenever an entry
// is created, removed or renamed: a directory's listing may be kept
// against its stat data there. Others (NFS, SMB, FUSE, 9p, FAT and its
// 2 s times, ntfs3, anything unknown) are listed every time.
var dirTimesTrusted = map[uint32]bool{
	unix.EXT4_SUPER_MAGIC:      true, // also ext2 and ext3
	unix.XFS_SUPER_MAGIC:       true,
	unix.BTRFS_SUPER_MAGIC:     true,
	unix.TMPFS_MAGIC:           true,
	unix.F2FS_SUPER_MAGIC:      true,
	unix.OVERLAYFS_SUPER_MAGIC: true,
	0x2fc12fc1:                 true, // zfs
}

// fsKindOf says what the file system of the open directory fd is to the
// walk.
func fsKindOf(fd int) fsKind {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return fsKind{}
	}
	t := uint32(st.Type)
	return fsKind{pseudo: pseudoFileSystems[t], trusted: dirTimesTrusted[t]}
}
