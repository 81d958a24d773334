package controlplane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options configure Start. The zero value starts a control plane in a new
// temporary directory with binaries from DefaultCacheDir.
type Options struct {
	// Dir holds everything the control plane writes: etcd's data (etcd/),
	// the certificates, keys and token (pki/), both logs (etcd.log,
	// kube-apiserver.log) and, by default, the kubeconfig. "" means a new
	// temporary directory that Stop removes; a directory given here is kept,
	// and a later Start on it finds the same objects in etcd.
	Dir string

	// KubeconfigPath is where the kubeconfig is written. "" means
	// Dir/kubeconfig.
	KubeconfigPath string

	// CacheDir holds the built binaries (see EnsureBinaries). "" means
	// DefaultCacheDir.
	CacheDir string

	// CompactionInterval is kube-apiserver's --etcd-compaction-interval: how
	// often it compacts etcd, each time to the revision it saw one interval
	// earlier. Zero means DefaultCompactionInterval. Compact compacts at once.
	CompactionInterval time.Duration

	// ExtraAPIServerFlags are appended to kube-apiserver's command line.
	ExtraAPIServerFlags []string

	// AuthorizationMode is kube-apiserver's --authorization-mode: "" means
	// AlwaysAllow (every authenticated request may do anything); "RBAC"
	// checks Roles and bindings, as a cluster does. The admin token's user
	// is in system:masters, which RBAC allows everything. It is an option
	// of its own because the flag is a list: given again in
	// ExtraAPIServerFlags, it would be added to AlwaysAllow, not replace it.
	AuthorizationMode string

	// Logger is told what is built and started, where, and how long it took.
	// Nil means slog.Default().
	Logger *slog.Logger
}

// DefaultCompactionInterval is short (kube-apiserver's own default is five
// minutes) so that history disappears, and 410 Expired can be seen, within
// seconds.
const DefaultCompactionInterval = 10 * time.Second

// ControlPlane is a running etcd and kube-apiserver on loopback. Its methods
// are safe for concurrent use.
type ControlPlane struct {
	// URL is kube-apiserver's address, https://127.0.0.1:PORT. The port stays
	// the same across StopAPIServer and StartAPIServer.
	URL string
	// KubeconfigPath is the kubeconfig written for URL: the serving
	// certificate as certificate-authority-data and Token, inline.
	KubeconfigPath string
	// Token is the bearer token of an administrator.
	Token string
	// CAPEM is the self-signed serving certificate clients must trust.
	CAPEM []byte
	// Dir is Options.Dir, or the temporary directory used instead.
	Dir string
	// EtcdURL is etcd's client address, http://127.0.0.1:PORT.
	EtcdURL string

	logger     *slog.Logger
	bin        Binaries
	args       []string     // kube-apiserver's flags, the same on every start
	hc         *http.Client // trusts CAPEM
	removeDir  bool
	etcd       *process
	apiserverL string // kube-apiserver's log file

	mu        sync.Mutex // guards apiserver and stopped
	apiserver *process   // nil while stopped
	stopped   bool
}

// Start builds the binaries if needed (EnsureBinaries), starts etcd and then
// kube-apiserver on free loopback ports, waits until kube-apiserver's /readyz
// answers, and writes the kubeconfig. With cached binaries it takes a few
// seconds. Stop must be called to end both processes; on Linux they are also
// killed if this process dies first.
//
// A bare control plane runs no kube-controller-manager and no scheduler:
// namespaces stay Terminating forever once deleted, Deployments get no
// ReplicaSets, Pods or status, and nothing is garbage-collected. Tests should
// work in fresh namespaces and clean up what they create.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	bin, err := EnsureBinaries(ctx, opts.CacheDir, logger)
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{Dir: opts.Dir, KubeconfigPath: opts.KubeconfigPath, logger: logger, bin: bin}
	if cp.Dir == "" {
		dir, err := os.MkdirTemp("", "informerlab-controlplane-")
		if err != nil {
			return nil, fmt.Errorf("controlplane: temporary directory: %w", err)
		}
		cp.Dir, cp.removeDir = dir, true
	} else if err := os.MkdirAll(cp.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("controlplane: directory: %w", err)
	}
	if cp.KubeconfigPath == "" {
		cp.KubeconfigPath = filepath.Join(cp.Dir, "kubeconfig")
	}
	if err := cp.start(ctx, opts); err != nil {
		cp.stopAll()
		return nil, err
	}
	return cp, nil
}

// start runs etcd, then kube-apiserver, then writes the kubeconfig.
func (cp *ControlPlane) start(ctx context.Context, opts Options) error {
	began := time.Now()
	p, err := writePKI(filepath.Join(cp.Dir, "pki"))
	if err != nil {
		return err
	}
	cp.Token, cp.CAPEM = p.token, p.caPEM
	if cp.hc, err = trustingClient(p.caPEM); err != nil {
		return err
	}

	cp.etcd, cp.EtcdURL, err = startEtcd(ctx, cp.bin.Etcd, cp.Dir)
	if err != nil {
		return err
	}
	cp.logger.Info(fmt.Sprintf("controlplane: etcd %s ready", EtcdVersion),
		"url", cp.EtcdURL, "took", time.Since(began).Round(time.Millisecond))

	compaction := opts.CompactionInterval
	if compaction <= 0 {
		compaction = DefaultCompactionInterval
	}
	cp.apiserverL = filepath.Join(cp.Dir, "kube-apiserver.log")
	var apiserver *process
	for attempt := 0; ; attempt++ {
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		cp.URL = fmt.Sprintf("https://127.0.0.1:%d", ports[0])
		cp.args = apiserverArgs(cp.Dir, ports[0], cp.EtcdURL, p, compaction, cmpOr(opts.AuthorizationMode, "AlwaysAllow"), opts.ExtraAPIServerFlags)
		apiserver, err = startAPIServer(ctx, cp.bin.KubeAPIServer, cp.args, cp.apiserverL, cp.URL, cp.hc, cp.Token)
		if err == nil {
			break
		}
		// Another process may have taken the port after it was chosen.
		if attempt == 2 || ctx.Err() != nil || !strings.Contains(err.Error(), "address already in use") {
			return err
		}
	}
	cp.mu.Lock()
	cp.apiserver = apiserver
	cp.mu.Unlock()
	cp.logger.Info(fmt.Sprintf("controlplane: kube-apiserver %s ready", KubernetesVersion),
		"url", cp.URL, "took", time.Since(began).Round(time.Millisecond))

	if err := writeKubeconfig(cp.KubeconfigPath, cp.URL, cp.CAPEM, cp.Token); err != nil {
		return err
	}
	cp.logger.Info("controlplane: wrote kubeconfig", "path", cp.KubeconfigPath)
	return nil
}

// StopAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after 30s) and
// leaves etcd running: clients now get "connection refused" on URL. It is an
// error to call it while kube-apiserver is already stopped.
func (cp *ControlPlane) StopAPIServer() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.apiserver == nil {
		return errors.New("controlplane: kube-apiserver is not running")
	}
	began := time.Now()
	err := cp.apiserver.stop(30 * time.Second)
	cp.apiserver = nil
	cp.logger.Info("controlplane: stopped kube-apiserver", "took", time.Since(began).Round(time.Millisecond))
	return err
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, on the same
// port with the same flags and credentials, and waits until it is ready.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return errors.New("controlplane: stopped")
	}
	if cp.apiserver != nil {
		return errors.New("controlplane: kube-apiserver is already running")
	}
	began := time.Now()
	p, err := startAPIServer(ctx, cp.bin.KubeAPIServer, cp.args, cp.apiserverL, cp.URL, cp.hc, cp.Token)
	if err != nil {
		return err
	}
	cp.apiserver = p
	cp.logger.Info("controlplane: kube-apiserver ready again", "url", cp.URL,
		"took", time.Since(began).Round(time.Millisecond))
	return nil
}

// EtcdRevision returns etcd's current revision: the resourceVersion of the
// newest write, of any resource.
func (cp *ControlPlane) EtcdRevision(ctx context.Context) (int64, error) {
	return etcdRevision(ctx, cp.EtcdURL)
}

// Compact compacts etcd to its current revision and returns that revision.
// Afterwards, every resourceVersion older than it is gone from etcd: for
// UncachedResource, a watch from one ends with 410 Expired and a paginated
// list at one is refused with 410 Expired. (Resources behind the watch cache
// keep answering from the cache's own history.)
func (cp *ControlPlane) Compact(ctx context.Context) (int64, error) {
	rev, err := etcdRevision(ctx, cp.EtcdURL)
	if err != nil {
		return 0, err
	}
	if err := etcdCompact(ctx, cp.EtcdURL, rev); err != nil {
		return 0, err
	}
	cp.logger.Debug("controlplane: compacted etcd", "revision", rev)
	return rev, nil
}

// APIServerLogPath is kube-apiserver's log file (all its starts, appended).
func (cp *ControlPlane) APIServerLogPath() string { return cp.apiserverL }

// Stop stops kube-apiserver, then etcd, and removes the temporary directory
// if Start made one. It returns the first error; calling it again does
// nothing.
func (cp *ControlPlane) Stop() error {
	cp.mu.Lock()
	if cp.stopped {
		cp.mu.Unlock()
		return nil
	}
	cp.mu.Unlock()
	err := cp.stopAll()
	cp.logger.Info("controlplane: stopped kube-apiserver and etcd")
	return err
}

// stopAll stops whatever is running and cleans up; used by Stop and by a
// failed Start.
func (cp *ControlPlane) stopAll() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.stopped = true
	var errs []error
	if cp.apiserver != nil {
		errs = append(errs, cp.apiserver.stop(30*time.Second))
		cp.apiserver = nil
	}
	if cp.etcd != nil {
		errs = append(errs, cp.etcd.stop(15*time.Second))
		cp.etcd = nil
	}
	if cp.removeDir {
		errs = append(errs, os.RemoveAll(cp.Dir))
	}
	return errors.Join(errs...)
}

// cmpOr returns s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
