package engine

import (
	"regexp"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/slimfly"
)

// TestMemoryNeedBoundsTheHeap computes the routing of Slim Flies and Clos
// fabrics as the plugin does (4 layers, 2 workers, after a first routing
// that the state keeps) while sampling the live heap, and requires the
// peak above the start to stay under memoryNeed — the estimate the plugin
// refuses a subnet by. It also wants the estimate not to be more than 12
// times the peak on the largest case, so that it refuses nothing that
// fits by far.
func TestMemoryNeedBoundsTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("routes q = 11")
	}
	builds := []struct {
		name  string
		build func() (*fabric.Fabric, error)
	}{
		{"slimfly q=5", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 5}) }},
		{"slimfly q=7", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 7}) }},
		{"slimfly q=11", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 11}) }},
		{"clos radix 16", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Radix: 16}) }},
		{"fat tree 3 levels radix 12", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Levels: 3, Radix: 12}) }},
	}
	for _, b := range builds {
		f, err := b.build()
		if err != nil {
			t.Fatal(err)
		}
		g, js := withLIDs(t, f, 2)
		last, err := Compute(js, "", 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := settings(t, "repair = false\n")
		runtime.GC()
		start := liveHeap()
		var peak atomic.Int64
		done := make(chan struct{})
		go func() {
			tick := time.NewTicker(200 * time.Microsecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					if h := liveHeap(); h > peak.Load() {
						peak.Store(h)
					}
				}
			}
		}()
		st, err := Compute(js, cfg, 2, last)
		close(done)
		if err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(st)
		used, need := peak.Load()-start, memoryNeed(g, 4, 2)
		t.Logf("%s: heap peak %d MiB above the start, estimate %d MiB", b.name, used>>20, need>>20)
		if used > need {
			t.Errorf("%s: the heap grew by %d MiB, the estimate is %d MiB", b.name, used>>20, need>>20)
		}
		if b.name == "slimfly q=11" && need > 12*used {
			t.Errorf("%s: the estimate %d MiB is over 12 × the heap's %d MiB", b.name, need>>20, used>>20)
		}
	}
}

// liveHeap is the heap held by objects, live or not yet swept.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestOverBudgetIsRefusedWithAdviceThatWorks: a memory_limit below what
// the routing needs is refused before any routing — an error that says
// what it needs and which memory_limit allows it — and that memory_limit
// routes it. A bad memory_limit names itself.
func TestOverBudgetIsRefusedWithAdviceThatWorks(t *testing.T) {
	_, js := subnet(t, 2)
	_, err := Compute(js, settings(t, "memory_limit = \"1MiB\"\n"), 2, nil)
	m := regexp.MustCompile(`needs about \d+ MiB, over the plugin's memory budget of 1 MiB \(memory_limit = "1MiB" in .*\): raise memory_limit \((memory_limit = "\d+MiB")\)`).FindStringSubmatch(errString(err))
	if m == nil {
		t.Fatalf("1 MiB: %v", err)
	}
	if _, err := Compute(js, settings(t, m[1]+"\n"), 2, nil); err != nil {
		t.Errorf("following the advice (%s): %v", m[1], err)
	}
	for _, bad := range []string{"lots", "-1GiB", "0"} {
		if _, err := Compute(js, settings(t, "memory_limit = \""+bad+"\"\n"), 2, nil); err == nil || !strings.Contains(err.Error(), `memory_limit = "`+bad+`"`) {
			t.Errorf("memory_limit %q: %v", bad, err)
		}
	}
	if b := defaultBudget(); b < 64<<20 {
		t.Errorf("the default budget is %d MiB", b>>20)
	}
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
