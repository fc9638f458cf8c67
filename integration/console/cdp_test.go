package console

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// browser is a headless Chromium started for one test, driven over the
// DevTools protocol on a loopback port.
type browser struct {
	cmd  *exec.Cmd
	conn *websocket.Conn

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpReply
	readErr error
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// chromiumPath finds Debian's chromium (scripts/test.sh installs it).
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found: install Debian's chromium package (scripts/test.sh does: ensure_chromium)")
	return ""
}

// startBrowser launches headless Chromium with remote debugging on a free
// loopback port and attaches to its page.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	dir := t.TempDir()
	args := []string{
		"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir=" + dir, "--window-size=1280,1600", "about:blank",
	}
	if os.Geteuid() == 0 {
		args = append([]string{"--no-sandbox"}, args...)
	}
	cmd := exec.Command(chromiumPath(t), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logf, err := os.Create(filepath.Join(dir, "chromium.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	b := &browser{cmd: cmd, waiting: map[int]chan cdpReply{}}
	t.Cleanup(func() {
		if b.conn != nil {
			_ = b.conn.Close()
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // chromium and its helper processes
		_ = cmd.Wait()
		_ = logf.Close()
	})
	// Chromium writes the port it bound to <user-data-dir>/DevToolsActivePort.
	var port string
	deadline := time.Now().Add(60 * time.Second)
	for port == "" {
		if bs, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			if l, _, _ := strings.Cut(string(bs), "\n"); strings.TrimSpace(l) != "" {
				port = strings.TrimSpace(l)
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "chromium.log"))
			t.Fatalf("chromium did not open its DevTools port within 60s; log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
	if err != nil {
		t.Fatalf("DevTools target list: %v", err)
	}
	err = json.NewDecoder(resp.Body).Decode(&targets)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("DevTools target list: %v", err)
	}
	ws := ""
	for _, tg := range targets {
		if tg.Type == "page" {
			ws = tg.WS
			break
		}
	}
	if !strings.HasPrefix(ws, "ws://127.0.0.1:") {
		t.Fatalf("no loopback page target in %+v", targets)
	}
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 1 << 16}
	conn, _, err := d.Dial(ws, nil)
	if err != nil {
		t.Fatalf("DevTools websocket: %v", err)
	}
	conn.SetReadLimit(64 << 20)
	b.conn = conn
	go b.readLoop()
	return b
}

func (b *browser) readLoop() {
	for {
		var msg struct {
			ID int `json:"id"`
			cdpReply
		}
		if err := b.conn.ReadJSON(&msg); err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		if msg.ID == 0 {
			continue // an event
		}
		b.mu.Lock()
		ch := b.waiting[msg.ID]
		delete(b.waiting, msg.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- msg.cdpReply
		}
	}
}

// call sends one DevTools command and decodes its result into out.
func (b *browser) call(method string, params any, out any) error {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return fmt.Errorf("devtools %s: connection closed: %w", method, b.readErr)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	err := b.conn.WriteJSON(map[string]any{"id": id, "method": method, "params": params})
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("devtools %s: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("devtools %s: connection closed", method)
		}
		if r.Error != nil {
			return fmt.Errorf("devtools %s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("devtools %s: no answer within 30s", method)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its
// (JSON-serialisable) value into out.
func (b *browser) eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("javascript %q: %s", expr, r.Exception.Text)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// waitFor polls a boolean JavaScript expression until it is true.
func (b *browser) waitFor(expr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		err := b.eval(expr, &ok)
		if err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("still false")
			}
			return fmt.Errorf("page: %s not within %v: %w", expr, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// navigate loads url and waits until the document is complete.
func (b *browser) navigate(url string) error {
	if err := b.call("Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return err
	}
	js, _ := json.Marshal(url)
	return b.waitFor("location.href === "+string(js)+" && document.readyState === 'complete'", 30*time.Second)
}

// screenshot writes a PNG of the top of the page, width x height pixels.
func (b *browser) screenshot(path string, width, height int) error {
	if err := b.call("Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return err
	}
	if err := b.eval("window.scrollTo(0, 0), true", nil); err != nil {
		return err
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := b.call("Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}
