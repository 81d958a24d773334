package controlplane

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// process is one child program (etcd or kube-apiserver) running in its own
// process group, with its stdout and stderr in a log file.
//
// Its own process group means a signal to -pid reaches every process it may
// have started, and a Ctrl-C in the terminal (which signals the terminal's
// foreground group) reaches only the parent, which then stops its children in
// order: kube-apiserver first, then etcd. On Linux the child is also killed if
// the parent dies without stopping it (sysProcAttr), so a crashed test leaves
// no orphans.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once the process has exited and been reaped
	waitErr error         // what Wait returned; read only after done is closed
}

// startProcess starts bin with args, appending its output to logPath.
func startProcess(name, bin string, args []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("controlplane: %s log: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("controlplane: start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exited is closed once the process has exited.
func (p *process) exited() <-chan struct{} { return p.done }

// exitError says how the process ended; call it only after exited is closed.
func (p *process) exitError() error {
	if p.waitErr == nil {
		return fmt.Errorf("controlplane: %s exited (status 0)", p.name)
	}
	return fmt.Errorf("controlplane: %s exited: %w", p.name, p.waitErr)
}

// stop sends SIGTERM to the process group, waits up to grace for the process
// to exit, then sends SIGKILL to the group and waits for it. It returns nil if
// the process exited on SIGTERM (cleanly or by the signal), and an error if it
// had to be killed or had already exited by itself.
func (p *process) stop(grace time.Duration) error {
	select {
	case <-p.done:
		return p.exitError()
	default:
	}
	pgid := p.cmd.Process.Pid
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("controlplane: signal %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-p.done
	return fmt.Errorf("controlplane: %s did not stop within %v of SIGTERM; killed it", p.name, grace)
}

// logTail returns the last n lines of the process's log, for error messages.
func (p *process) logTail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return tail(string(data), n)
}
