package replay

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The integration tests run against a throwaway PostgreSQL cluster: initdb
// in a temporary directory, wal_level=logical, a Unix socket only, on a free
// port, removed when the tests end. Without PostgreSQL they skip, saying
// why; with CI set, a missing PostgreSQL fails them instead (.ci/run
// installs Debian's postgresql).

var (
	clusterOnce sync.Once
	clusterURL  string
	clusterErr  string // why there is no cluster
	clusterStop func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	if clusterStop != nil {
		clusterStop()
	}
	os.Exit(code)
}

// cluster returns the URL of the test cluster, starting it on first use.
func cluster(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	clusterOnce.Do(func() { clusterURL, clusterErr = startCluster() })
	if clusterErr != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI is set, so PostgreSQL must be there: .ci/run installs Debian's postgresql)", clusterErr)
		}
		t.Skipf("%s; the replay tests need it (set CI=true to make this a failure)", clusterErr)
	}
	return clusterURL
}

// pgDirs is where Debian's packages put PostgreSQL's server programs, one
// directory per major version, without linking them onto the PATH.
var pgDirs = "/usr/lib/postgresql/*/bin"

// pgBin finds a PostgreSQL server program on the PATH, or in pgDirs (the
// newest version).
func pgBin(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	dirs, _ := filepath.Glob(pgDirs)
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if p := filepath.Join(d, name); fileExists(p) {
			return p, true
		}
	}
	return "", false
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// startCluster creates and starts a cluster, and returns its URL, or why it could not.
func startCluster() (string, string) {
	initdb, ok := pgBin("initdb")
	if !ok {
		return "", "PostgreSQL is not installed: no initdb on the PATH or in " + pgDirs
	}
	pgctl := filepath.Join(filepath.Dir(initdb), "pg_ctl")
	if !fileExists(pgctl) {
		if p, ok := pgBin("pg_ctl"); ok {
			pgctl = p
		}
	}
	dir, err := os.MkdirTemp("", "tidemark-pg-")
	if err != nil {
		return "", err.Error()
	}
	// initdb refuses to run as root: as root, run the server programs as
	// the postgres user, in a directory it owns.
	var as []string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", "running as root, and there is no postgres user to run initdb as"
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return "", err.Error()
		}
		runuser, err := exec.LookPath("runuser")
		if err != nil {
			os.RemoveAll(dir)
			return "", "running as root, and runuser is missing"
		}
		as = []string{runuser, "-u", "postgres", "--"}
	}
	run := func(args ...string) error {
		args = append(slices.Clone(as), args...)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	data := filepath.Join(dir, "data")
	if err := run(initdb, "-D", data, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return "", "initdb failed: " + err.Error()
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return "", err.Error()
	}
	opts := fmt.Sprintf("-c wal_level=logical -c listen_addresses='' -k %s -p %d -c fsync=off -c max_connections=200", dir, port)
	if err := run(pgctl, "-D", data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		os.RemoveAll(dir)
		return "", "the server did not start: " + err.Error()
	}
	clusterStop = func() {
		_ = run(pgctl, "-D", data, "-m", "immediate", "-w", "stop")
		os.RemoveAll(dir)
	}
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", dir, port), ""
}

// freePort finds a TCP port no one listens on; the server uses it only to
// name its Unix socket, but a free one keeps two clusters apart.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// TestClusterNeedsPostgreSQL: without PostgreSQL the cluster is not
// started, and the reason the tests skip (or, under CI, fail) with says so.
func TestClusterNeedsPostgreSQL(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	saved := pgDirs
	defer func() { pgDirs = saved }()
	pgDirs = filepath.Join(t.TempDir(), "*", "bin")
	url, why := startCluster()
	assert.Empty(t, url)
	assert.Equal(t, "PostgreSQL is not installed: no initdb on the PATH or in "+pgDirs, why)
}
