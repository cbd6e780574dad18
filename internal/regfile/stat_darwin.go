package regfile

import "syscall"

func infoOf(st *syscall.Stat_t) Info {
	return Info{Size: st.Size, Mtime: st.Mtimespec.Nano(), Ctime: st.Ctimespec.Nano(), Ino: st.Ino, Exec: st.Mode&0o100 != 0}
}
