package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/informerlab/informerlab/fakeapi"
)

// config is what the flags say.
type config struct {
	addr             string
	token            string
	history          int
	bookmarkInterval time.Duration
	kubeconfig       string
	tls              bool
	sampleResources  bool
	logLevel         slog.Level
	logLevelText     string // the --log-level flag, parsed into logLevel
}

// usageError is a bad command line: main exits with status 2 for it.
type usageError struct{ msg string }

func (e *usageError) Error() string {
	return "fakeapi: " + e.msg + " (run fakeapi --help for usage)"
}

// errHelp is returned by parseFlags for -h, -help and --help.
var errHelp = errors.New("fakeapi: help requested")

func newFlagSet(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("fakeapi", flag.ContinueOnError)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080",
		"`host:port` to listen on; the default is loopback only, port 0 picks a free port")
	fs.StringVar(&cfg.token, "token", "",
		"bearer `token` every API request must carry (401 without it); empty means no authentication")
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
		return cfg, &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return cfg, &usageError{msg: fmt.Sprintf("unexpected argument %q: fakeapi takes only flags", fs.Arg(0))}
	}
	if cfg.addr == "" {
		return cfg, &usageError{msg: "--addr must not be empty"}
	}
	if cfg.history <= 0 {
		return cfg, &usageError{msg: fmt.Sprintf("--history must be at least 1, got %d", cfg.history)}
	}
	if cfg.bookmarkInterval == 0 {
		return cfg, &usageError{msg: "--bookmark-interval must not be 0 (use a negative value to disable bookmarks)"}
	}
	if err := cfg.logLevel.UnmarshalText([]byte(cfg.logLevelText)); err != nil {
		return cfg, &usageError{msg: fmt.Sprintf("--log-level must be debug, info, warn or error, got %q", cfg.logLevelText)}
	}
	if strings.ContainsAny(cfg.token, " \t\r\n") {
		return cfg, &usageError{msg: "--token must not contain whitespace"}
	}
	return cfg, nil
}

const usageHeader = `fakeapi runs an in-memory Kubernetes API server (package fakeapi) over HTTP,
in the Kubernetes wire format: kubectl, client-go informers and demo --server
connect to it. It keeps everything in memory and listens on loopback
(127.0.0.1) unless --addr says otherwise. Faults are injected through the
/admin/ endpoints (docs/fakeapi.md). SIGINT or SIGTERM shuts it down.

kubectl and other kubeconfig-based clients send a token only over https:
use --tls together with --token.

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

  # https and a token, a free port, a tiny history so 410s come fast:
  fakeapi --addr 127.0.0.1:0 --tls --token s3cret --history 10 --write-kubeconfig kc.yaml

  # Serve Foos and Deployments too, and run the demo's controller against it
  # (this server has no Deployment controller: the demo plays it):
  fakeapi --sample-resources --write-kubeconfig /tmp/fakeapi.kubeconfig
  go run ./cmd/demo --kubeconfig /tmp/fakeapi.kubeconfig --simulate-deployments

  # Bookmarks every 5 seconds, debug logging:
  fakeapi --bookmark-interval 5s --log-level debug

  # Inject a fault: drop the watch history and end every watch, so each
  # informer's re-watch gets 410 Expired and it relists:
  curl -X POST http://127.0.0.1:8080/admin/faults/compact
  curl -X POST http://127.0.0.1:8080/admin/faults/close-watches
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
