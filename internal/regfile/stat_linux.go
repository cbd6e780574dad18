package regfile

import "syscall"

func infoOf(st *syscall.Stat_t) Info {
	return Info{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Exec: st.Mode&0o100 != 0}
}
