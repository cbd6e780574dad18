// Command walkfloor is the floor a no-change snapshot is measured
// against (scripts/bench-snapshot.sh): the least work that can tell a
// workspace changed, with none of ctxgit's other work (ignore rules,
// hashing, objects, the state files, the commit).
//
// By default it reads every directory, lstats every entry and reads a
// stat cache (one record per file: path, size, mtime, ctime, inode),
// counting the files whose stat data differ. With -untracked it keeps
// each directory's mtime in the cache too, as git's untracked cache
// does, and lists a directory only when its mtime changed: then it
// lstats every directory and file, and reads none of the unchanged.
//
// The cache is written when missing, and read otherwise. Directories
// are walked by GOMAXPROCS workers, as ctxgit walks them.
//
//	walkfloor -cache FILE [-untracked] DIR
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

type stat struct {
	size, mtime, ctime int64
	ino                uint64
}

func statOf(fi os.FileInfo) stat {
	ctime, ino := sysStat(fi)
	return stat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: ctime, ino: ino}
}

// dirRec is one directory: its mtime and its entries (name, is a
// directory) when it was listed.
type dirRec struct {
	mtime   int64
	entries []entry
}

type entry struct {
	name string
	dir  bool
}

type cache struct {
	files map[string]stat
	dirs  map[string]*dirRec
}

func main() {
	cachePath := flag.String("cache", "", "the stat cache file (written when missing)")
	untracked := flag.Bool("untracked", false, "keep directory mtimes and list only changed directories")
	flag.Parse()
	if flag.NArg() != 1 || *cachePath == "" {
		fmt.Fprintln(os.Stderr, "usage: walkfloor -cache FILE [-untracked] DIR")
		os.Exit(2)
	}
	root := flag.Arg(0)
	old, err := readCache(*cachePath)
	write := os.IsNotExist(err)
	if err != nil && !write {
		fmt.Fprintln(os.Stderr, "walkfloor:", err)
		os.Exit(1)
	}
	w := &walker{root: root, old: old, untracked: *untracked, now: cache{files: map[string]stat{}, dirs: map[string]*dirRec{}}}
	w.walk()
	if write {
		if err := writeCache(*cachePath, &w.now); err != nil {
			fmt.Fprintln(os.Stderr, "walkfloor:", err)
			os.Exit(1)
		}
	}
	fmt.Println(w.changed.Load(), "changed")
}

type walker struct {
	root      string
	old       *cache
	untracked bool
	mu        sync.Mutex
	now       cache
	changed   counter
}

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) add(n int) { c.mu.Lock(); c.n += n; c.mu.Unlock() }
func (c *counter) Load() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

func (w *walker) walk() {
	var (
		mu     sync.Mutex
		cond   = sync.NewCond(&mu)
		stack  = []string{""}
		active = 0
		wg     sync.WaitGroup
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				for len(stack) == 0 && active > 0 {
					cond.Wait()
				}
				if len(stack) == 0 {
					mu.Unlock()
					cond.Broadcast()
					return
				}
				rel := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				active++
				mu.Unlock()
				sub := w.dir(rel)
				mu.Lock()
				stack = append(stack, sub...)
				active--
				mu.Unlock()
				cond.Broadcast()
			}
		}()
	}
	wg.Wait()
}

// dir lists (or, with -untracked and an unchanged mtime, recalls) one
// directory, lstats its files, and returns its subdirectories.
func (w *walker) dir(rel string) []string {
	abs := filepath.Join(w.root, rel)
	var entries []entry
	var mtime int64
	if w.untracked {
		fi, err := os.Lstat(abs)
		if err != nil {
			return nil
		}
		mtime = fi.ModTime().UnixNano()
		if d := w.old.dirs[rel]; d != nil && d.mtime == mtime {
			entries = d.entries
		}
	}
	if entries == nil {
		des, err := os.ReadDir(abs)
		if err != nil {
			return nil
		}
		for _, de := range des {
			if de.Name() == ".git" {
				continue
			}
			entries = append(entries, entry{de.Name(), de.IsDir()})
		}
	}
	var sub []string
	changed := 0
	files := map[string]stat{}
	for _, e := range entries {
		p := filepath.Join(rel, e.name)
		if e.dir {
			sub = append(sub, p)
			continue
		}
		fi, err := os.Lstat(filepath.Join(w.root, p))
		if err != nil {
			changed++
			continue
		}
		st := statOf(fi)
		if o, ok := w.old.files[p]; !ok || o != st {
			changed++
		}
		files[p] = st
	}
	w.changed.add(changed)
	w.mu.Lock()
	for p, st := range files {
		w.now.files[p] = st
	}
	w.now.dirs[rel] = &dirRec{mtime: mtime, entries: entries}
	w.mu.Unlock()
	return sub
}

func readCache(path string) (*cache, error) {
	c := &cache{files: map[string]stat{}, dirs: map[string]*dirRec{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	r := bytes.NewReader(data)
	str := func() string {
		n, _ := binary.ReadUvarint(r)
		b := make([]byte, n)
		r.Read(b)
		return string(b)
	}
	i64 := func() int64 { v, _ := binary.ReadVarint(r); return v }
	nf, _ := binary.ReadUvarint(r)
	for range nf {
		p := str()
		c.files[p] = stat{size: i64(), mtime: i64(), ctime: i64(), ino: uint64(i64())}
	}
	nd, _ := binary.ReadUvarint(r)
	for range nd {
		p := str()
		d := &dirRec{mtime: i64()}
		ne, _ := binary.ReadUvarint(r)
		for range ne {
			name := str()
			isDir, _ := r.ReadByte()
			d.entries = append(d.entries, entry{name, isDir == 1})
		}
		c.dirs[p] = d
	}
	return c, nil
}

func writeCache(path string, c *cache) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	b := bufio.NewWriter(f)
	var tmp [binary.MaxVarintLen64]byte
	u := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	i := func(v int64) { b.Write(tmp[:binary.PutVarint(tmp[:], v)]) }
	s := func(v string) { u(uint64(len(v))); b.WriteString(v) }
	u(uint64(len(c.files)))
	for p, st := range c.files {
		s(p)
		i(st.size)
		i(st.mtime)
		i(st.ctime)
		i(int64(st.ino))
	}
	u(uint64(len(c.dirs)))
	for p, d := range c.dirs {
		s(p)
		i(d.mtime)
		u(uint64(len(d.entries)))
		for _, e := range d.entries {
			s(e.name)
			if e.dir {
				b.WriteByte(1)
			} else {
				b.WriteByte(0)
			}
		}
	}
	if err := b.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
