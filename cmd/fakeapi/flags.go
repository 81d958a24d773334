package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/cli"
)

// config is what the flags say.
type config struct {
	addr             string
	token            string
	tokenFile        string
	readTimeout      time.Duration
	history          int
	bookmarkInterval time.Duration
	kubeconfig       string
	tls              bool
	sampleResources  bool
	logLevel         slog.Level
	logLevelText     string // the --log-level flag, parsed into logLevel
}

// usageError is a bad command line: main exits with status 2 for it.
type usageError = cli.UsageError

// usagef returns a *usageError of fakeapi.
func usagef(format string, a ...any) error { return cli.Usagef("fakeapi", format, a...) }

// errHelp is returned by parseFlags for -h, -help and --help.
var errHelp = errors.New("fakeapi: help requested")

func newFlagSet(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("fakeapi", flag.ContinueOnError)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080",
		"`host:port` to listen on; the default is loopback only, port 0 picks a free port")
	fs.StringVar(&cfg.token, "token", "",
		"bearer `token` every API request must carry (401 without it); empty means no authentication. Other users of this machine can read a command line (ps): prefer --token-file")
	fs.StringVar(&cfg.tokenFile, "token-file", "",
		"read the bearer token from the file at `path` (surrounding whitespace trimmed) instead of --token")
	fs.DurationVar(&cfg.readTimeout, "read-timeout", defaultReadTimeout,
		"how long a client may take to send a whole request, headers and body; a client that stops mid-request is disconnected (watches are not cut: only their request is timed)")
	fs.IntVar(&cfg.history, "history", fakeapi.DefaultHistoryLimit,
		"watch history window, in `events`; a watch from an older resourceVersion gets 410 Expired")
	fs.DurationVar(&cfg.bookmarkInterval, "bookmark-interval", fakeapi.DefaultBookmarkInterval,
		"how often watches that allow bookmarks get a BOOKMARK event; negative disables them")
	fs.BoolVar(&cfg.tls, "tls", false,
		"serve https with a self-signed certificate made at start (the kubeconfig carries it); kubectl sends --token only over https")
	fs.BoolVar(&cfg.sampleResources, "sample-resources", false,
		"also serve the sample controller's resources (samplecontroller.k8s.io/v1alpha1 foos, apps/v1 deployments, field types validated), for demo --server")
	fs.StringVar(&cfg.kubeconfig, "write-kubeconfig", "",
		"write a kubeconfig for this server (URL, certificate, token, context) to `path`, for kubectl --kubeconfig")
	fs.StringVar(&cfg.logLevelText, "log-level", "info",
		"log `level` on stderr: debug, info, warn or error (info logs every request)")
	return fs
}

// parseFlags parses args into a config. It returns errHelp for a help flag
// and a *usageError for anything else it cannot accept.
func parseFlags(args []string) (config, error) {
	var cfg config
	fs := newFlagSet(&cfg)
	fs.SetOutput(io.Discard) // run prints the one message itself
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, errHelp
		}
		return cfg, usagef("%s", err.Error())
	}
	if fs.NArg() > 0 {
		return cfg, usagef("unexpected argument %q: fakeapi takes only flags", fs.Arg(0))
	}
	if cfg.addr == "" {
		return cfg, usagef("--addr must not be empty")
	}
	if cfg.history <= 0 {
		return cfg, usagef("--history must be at least 1, got %d", cfg.history)
	}
	if cfg.bookmarkInterval == 0 {
		return cfg, usagef("--bookmark-interval must not be 0 (use a negative value to disable bookmarks)")
	}
	if err := cfg.logLevel.UnmarshalText([]byte(cfg.logLevelText)); err != nil {
		return cfg, usagef("--log-level must be debug, info, warn or error, got %q", cfg.logLevelText)
	}
	if strings.ContainsAny(cfg.token, " \t\r\n") {
		return cfg, usagef("--token must not contain whitespace")
	}
	if cfg.readTimeout <= 0 {
		return cfg, usagef("--read-timeout must be positive, got %v", cfg.readTimeout)
	}
	if cfg.tokenFile != "" {
		if cfg.token != "" {
			return cfg, usagef("--token and --token-file exclude each other: give the token once")
		}
		token, err := readTokenFile(cfg.tokenFile)
		if err != nil {
			return cfg, err
		}
		cfg.token = token
	}
	return cfg, nil
}

// defaultReadTimeout bounds the reading of one request: far more than a
// 3 MiB body takes, far less than a client that stopped sending would
// hold a connection.
const defaultReadTimeout = 30 * time.Second

// readTokenFile reads a token file: one token, surrounding whitespace
// (the final newline of `echo s3cret > file`) trimmed.
func readTokenFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("fakeapi: --token-file: %w", err)
	}
	token := strings.TrimSpace(string(data))
	switch {
	case token == "":
		return "", fmt.Errorf("fakeapi: --token-file %s is empty: write the token into it, or leave the flag out to serve without authentication", path)
	case strings.ContainsAny(token, " \t\r\n"):
		return "", fmt.Errorf("fakeapi: --token-file %s holds more than one word: a token has no whitespace", path)
	}
	return token, nil
}

const usageHeader = `fakeapi runs an in-memory Kubernetes API server (package fakeapi) over HTTP,
in the Kubernetes wire format: kubectl, client-go informers and demo --server
connect to it. It keeps everything in memory and listens on loopback
(127.0.0.1) unless --addr says otherwise. Faults are injected through the
/admin/ endpoints (docs/fakeapi.md). SIGINT or SIGTERM shuts it down.

kubectl and other kubeconfig-based clients send a token only over https:
use --tls together with --token or --token-file.

Pages of other sites open in your browser cannot use it: a request must
name this server in its Host header, and a write must come from no web
page (no Origin, as with kubectl and curl) and carry a JSON or Kubernetes
patch Content-Type (403 otherwise, whatever the token).

Usage:
  fakeapi [flags]

Flags:
`

const usageExamples = `
Examples:
  # Serve on 127.0.0.1:8080 and write a kubeconfig for kubectl and demo:
  fakeapi --write-kubeconfig /tmp/fakeapi.kubeconfig
  kubectl --kubeconfig /tmp/fakeapi.kubeconfig get configmaps -w

  # kubectl validates against the OpenAPI documents fakeapi serves:
  kubectl --kubeconfig /tmp/fakeapi.kubeconfig apply -f cm.yaml

  # https and a token kept out of the command line, a free port, a tiny
  # history so 410s come fast:
  fakeapi --addr 127.0.0.1:0 --tls --token-file token.txt --history 10 --write-kubeconfig kc.yaml

  # Serve Foos and Deployments too, and run the demo's controller against it
  # (this server has no Deployment controller: the demo plays it):
  fakeapi --sample-resources --write-kubeconfig /tmp/fakeapi.kubeconfig
  go run ./cmd/demo --kubeconfig /tmp/fakeapi.kubeconfig --simulate-deployments

  # Bookmarks every 5 seconds, debug logging:
  fakeapi --bookmark-interval 5s --log-level debug

  # Inject a fault: drop the watch history and end every watch, so each
  # informer's re-watch gets 410 Expired and it relists:
  # (a write says its body is JSON, which no page of another site can send):
  curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:8080/admin/faults/compact
  curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:8080/admin/faults/close-watches
`

// printUsage writes the description, every flag with its default, and
// examples.
func printUsage(w io.Writer) {
	fs := newFlagSet(new(config))
	fmt.Fprint(w, usageHeader)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  %s\n        %s%s\n", strings.TrimSpace("--"+f.Name+" "+name), usage, defaultText(f))
	})
	fmt.Fprint(w, usageExamples)
}

func defaultText(f *flag.Flag) string {
	if f.DefValue == "" || f.DefValue == "false" {
		return ""
	}
	return " (default " + f.DefValue + ")"
}
