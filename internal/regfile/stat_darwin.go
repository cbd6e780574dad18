package regfile

import "golang.org/x/sys/unix"

func infoOf(st *unix.Stat_t) Info {
	return Info{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Exec: st.Mode&0o100 != 0}
}
