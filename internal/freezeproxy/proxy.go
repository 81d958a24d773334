package freezeproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// Proxy forwards TCP connections from its loopback address to a backend.
type Proxy struct {
	ln      net.Listener
	backend string

	mu     sync.Mutex // guards frozen, conns and closed
	frozen chan struct{}
	conns  []net.Conn
	closed bool
}

// Start listens on a free loopback port and forwards every connection to
// backend (host:port). Close stops it.
func Start(backend string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("freezeproxy: %w", err)
	}
	p := &Proxy{ln: ln, backend: backend, frozen: make(chan struct{})}
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.backend)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			in.Close()
			out.Close()
			return
		}
		p.conns = append(p.conns, in, out)
		frozen := p.frozen
		p.mu.Unlock()
		go pipe(in, out, frozen)
		go pipe(out, in, frozen)
	}
}

// pipe copies src to dst until either fails or frozen is closed; from then
// on it forwards nothing and closes nothing.
func pipe(dst, src net.Conn, frozen <-chan struct{}) {
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		select {
		case <-frozen:
			return
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if tcp, ok := dst.(*net.TCPConn); ok && errors.Is(err, io.EOF) {
				_ = tcp.CloseWrite() // pass a clean end on
			}
			return
		}
	}
}

// Freeze stops every connection open now: they stay open and silent. New
// connections are forwarded as before.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.frozen)
	p.frozen = make(chan struct{})
}

// Close stops listening and closes every connection, frozen or not.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.conns {
		c.Close()
	}
}
