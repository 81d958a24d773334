package freezeproxy_test

import (
	"bufio"
	"fmt"
	"net"
	"time"

	"github.com/informerlab/informerlab/internal/freezeproxy"
)

// A connection opened before Freeze goes silent; one opened after works.
func Example() {
	echo, _ := net.Listen("tcp", "127.0.0.1:0")
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { // echo every line back
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					_, _ = c.Write([]byte(line))
				}
			}()
		}
	}()
	p, _ := freezeproxy.Start(echo.Addr().String())
	defer p.Close()

	ask := func(c net.Conn) string {
		_, _ = c.Write([]byte("ping\n"))
		_ = c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return "no answer"
		}
		return line[:len(line)-1]
	}
	before, _ := net.Dial("tcp", p.Addr())
	defer before.Close()
	fmt.Println("before the freeze:", ask(before))
	p.Freeze()
	fmt.Println("the same connection after it:", ask(before))
	after, _ := net.Dial("tcp", p.Addr())
	defer after.Close()
	fmt.Println("a new connection:", ask(after))
	// Output:
	// before the freeze: ping
	// the same connection after it: no answer
	// a new connection: ping
}
