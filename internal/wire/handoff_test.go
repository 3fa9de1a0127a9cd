package wire

import (
	"testing"
	"time"
)

// The reader's hand-off never waits for the caller: far more reads than
// any fixed queue would hold go in while nobody takes them, and only the
// backlog bound (reached exactly there) asks the reader to pause.
func TestHandoffNeverBlocksTheReader(t *testing.T) {
	h := NewHandoff()
	data := make([]byte, 100)
	below := (maxBacklog+len(data)-1)/len(data) - 1 // reads that stay below the bound
	done := make(chan bool)
	go func() {
		for i := 0; i < below; i++ {
			if _, full := h.Push(Msg{Data: data}); full {
				t.Errorf("full after %d reads of %d bytes, below the %d-byte backlog", i, len(data), maxBacklog)
				break
			}
		}
		_, full := h.Push(Msg{Data: data})
		done <- full
	}()
	select {
	case full := <-done:
		if !full {
			t.Errorf("not full at the %d-byte backlog", maxBacklog)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("push blocked with nobody taking")
	}
	if got := h.take(nil); len(got) != below+1 {
		t.Fatalf("took %d reads", len(got))
	}
}
