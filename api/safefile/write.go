package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// PartSuffix ends the name of the temporary file WriteAtomic writes
// before its rename (".NAME-123456.colabdash-part", beside NAME): a
// leftover after a crash is recognisable as colabdash's.
const PartSuffix = ".colabdash-part"

// WriteAtomic writes b to path so that a reader sees either the old file
// or the whole new one, never half of it: b goes to a temporary file in
// path's directory (which must exist), the file is given mode perm (not
// altered by the umask), closed and renamed over path. A symbolic link
// at path is replaced, never followed. On any error the temporary file is
// removed and path is left as it was.
func WriteAtomic(path string, b []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*"+PartSuffix)
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, perm)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
