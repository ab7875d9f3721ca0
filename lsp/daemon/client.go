package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ctxls/ctxls/lsp/wire"
)

// Remote values of the clients' --remote flag.
const (
	RemoteOff  = "off"
	RemoteAuto = "auto"
)

// startWait bounds how long a client waits for the daemon it started.
const startWait = 10 * time.Second

// Client is a connection to the daemon.
type Client struct {
	conn net.Conn
	r    *bufio.Reader
	next int
}

// Connect connects as --remote says: "auto" is the default socket, with a
// daemon started detached when none answers; any other value is the path
// of a socket, which must be served already. The socket and its directory
// must be this user's and private.
func Connect(remote string) (*Client, error) {
	auto := remote == RemoteAuto
	socket := remote
	if auto {
		var err error
		if socket, err = DefaultSocket(); err != nil {
			return nil, err
		}
	}
	c, err := dial(socket)
	if err == nil || !auto {
		return c, err
	}
	if err := start(socket); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(startWait)
	for {
		c, err := dial(socket)
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(15 * time.Millisecond)
	}
}

func dial(socket string) (*Client, error) {
	if err := CheckSocket(socket); err != nil {
		return nil, err
	}
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn, r: bufio.NewReader(conn)}, nil
}

// start starts a daemon on socket, detached: a new session of the same
// binary, its output appended to the log file in the cache directory.
func start(socket string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("starting the daemon: %v", err)
	}
	logPath, err := LogFile()
	if err != nil {
		return fmt.Errorf("starting the daemon: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return fmt.Errorf("starting the daemon: %v", err)
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("starting the daemon: %v", err)
	}
	defer logf.Close()
	cmd := exec.Command(exe, "daemon", "--socket", socket)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the daemon: %v", err)
	}
	go cmd.Wait() // reap it if it exits while this client runs (a second daemon of a race)
	return nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// call sends one request and reads its answer into res.
func (c *Client) call(method string, params, res any) error {
	c.next++
	id, _ := json.Marshal(c.next)
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := writeMessage(c.conn, &message{ID: id, Method: method, Params: raw}); err != nil {
		return fmt.Errorf("writing to the daemon: %v", err)
	}
	m, err := readMessage(c.r)
	if err != nil {
		return fmt.Errorf("reading from the daemon: %v", err)
	}
	if m.Error != nil {
		return m.Error
	}
	return json.Unmarshal(m.Result, res)
}

// Attach makes the connection a session of p.Kind; the returned stream is
// then that protocol's, to the daemon's session.
func (c *Client) Attach(p AttachParams) (*Stream, AttachResult, error) {
	p.Build = Build()
	var res AttachResult
	if err := c.call(MethodAttach, p, &res); err != nil {
		return nil, res, err
	}
	return &Stream{c}, res, nil
}

// Stream is an attached session's stream.
type Stream struct{ c *Client }

func (s *Stream) Read(p []byte) (int, error)  { return s.c.r.Read(p) }
func (s *Stream) Write(p []byte) (int, error) { return s.c.conn.Write(p) }
func (s *Stream) Close() error                { return s.c.conn.Close() }

// CloseWrite tells the daemon the client has no more to send; what the
// daemon still sends can be read.
func (s *Stream) CloseWrite() error {
	if uc, ok := s.c.conn.(*net.UnixConn); ok {
		return uc.CloseWrite()
	}
	return s.c.conn.Close()
}

// Select runs one selection in the daemon.
func (c *Client) Select(p SelectParams) (*wire.Result, error) {
	p.Build = Build()
	var res wire.Result
	err := c.call(MethodSelect, p, &res)
	return &res, err
}

// Status reports the daemon.
func (c *Client) Status() (Status, error) {
	var st Status
	err := c.call(MethodStatus, struct{}{}, &st)
	return st, err
}

// IsRequestError reports whether err is the daemon's answer to a bad
// request (not a failure to reach it, nor a daemon of another build).
func IsRequestError(err error) bool {
	var re *rpcError
	return errors.As(err, &re) && re.Code != codeOtherBuild
}

// IsParamError reports whether err is the daemon refusing a request's
// parameter (a *workspace.ParamError there), with its "field: message".
func IsParamError(err error) (string, bool) {
	var re *rpcError
	if errors.As(err, &re) && re.Code == -32602 {
		return re.Message, true
	}
	return "", false
}
