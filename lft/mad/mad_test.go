package mad_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/lft"
	"slimroute/lft/mad"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

func tables(t *testing.T) *lft.Tables {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: "hops", Seed: 1, LMC: -1})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tables
}

func TestSMPRoundTrip(t *testing.T) {
	smp := &mad.SMP{BaseVersion: 1, MgmtClass: mad.MgmtClassDirected, ClassVersion: 1, Method: mad.MethodSet,
		HopCount: 3, TID: 42, AttrID: mad.AttrLinearFwdTable, AttrMod: 7, DrSLID: 0xFFFF, DrDLID: 0xFFFF}
	smp.Data[5] = 9
	smp.InitialPath[1], smp.InitialPath[2], smp.InitialPath[3] = 5, 7, 11
	pkt, err := mad.Encode(&mad.LRH{VL: 15, LNH: mad.LNHIBALocal, DLID: 0xFFFF, SLID: 0xFFFF}, &mad.BTH{OpCode: mad.OpUDSendOnly, PKey: 0xFFFF}, &mad.DETH{}, smp)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkt) != mad.PacketLen {
		t.Fatalf("packet of %d bytes, want %d", len(pkt), mad.PacketLen)
	}
	lrh, _, _, got, err := mad.Decode(pkt)
	if err != nil {
		t.Fatal(err)
	}
	if lrh.VL != 15 || lrh.PktLen != 72 || got.AttrMod != 7 || got.Data[5] != 9 || got.InitialPath[3] != 11 || got.TID != 42 {
		t.Fatalf("decoded %+v %+v", lrh, got)
	}
	pkt[100] ^= 1 // a flipped bit is caught by the CRCs
	if _, _, _, _, err := mad.Decode(pkt); err == nil || !strings.Contains(err.Error(), "CRC") {
		t.Fatalf("corrupted packet: %v", err)
	}
}

func TestLFTsSurviveThePcap(t *testing.T) {
	tab := tables(t)
	sm := tab.Switches()[0]
	var b bytes.Buffer
	n, err := mad.WriteLFTs(&b, tab, sm)
	if err != nil {
		t.Fatal(err)
	}
	blocks := (int(tab.LIDs().Top()) + 1 + 63) / 64
	if n != 50*blocks {
		t.Fatalf("%d packets, want %d (50 switches × %d blocks)", n, 50*blocks, blocks)
	}
	first := b.String()
	d, err := mad.ReadLFTs(&b, "lfts.pcap", tab.Fabric(), sm, tab.LIDs())
	if err != nil {
		t.Fatal(err)
	}
	if diff := lft.DiffLFTs(tab, d, 5); len(diff) > 0 {
		t.Fatalf("tables from the pcap differ: %v", diff)
	}
	var again bytes.Buffer
	mad.WriteLFTs(&again, tab, sm)
	if again.String() != first {
		t.Fatal("two writes of the same tables differ")
	}
	// from an HCA as the SM, every route is one hop longer: out of the
	// HCA's port to its switch, then the route from that switch
	f := tab.Fabric()
	for _, h := range f.IDsOf(fabric.HCA) {
		port := fabric.PortRef{Node: h, Port: 1}
		sw, ok := f.Peer(port)
		if !ok {
			t.Fatalf("%s port 1 has no cable", f.Name(h))
		}
		fromHCA, err := mad.DirectedRoutes(f, h)
		if err != nil {
			t.Fatal(err)
		}
		fromSwitch, err := mad.DirectedRoutes(f, sw.Node)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range tab.Switches() {
			want := append([]uint8{uint8(port.Port)}, fromSwitch[s]...)
			if !bytes.Equal(fromHCA[s], want) {
				t.Fatalf("route from %s to %s is %v, want %v (its switch's route %v one hop longer)", f.Name(h), f.Name(s), fromHCA[s], want, fromSwitch[s])
			}
		}
	}
}

// TestTsharkDecodesOurSMPs has Wireshark's dissector read our pcap: every
// packet decodes as a directed-route SubnSet(LinearForwardingTable) with no
// malformed packet, and the 64 ports it shows for a block are ours.
func TestTsharkDecodesOurSMPs(t *testing.T) {
	ibsimtest.RequireTools(t, "tshark")
	tab := tables(t)
	path := filepath.Join(t.TempDir(), "lfts.pcap")
	fh, _ := os.Create(path)
	n, err := mad.WriteLFTs(fh, tab, tab.Switches()[0])
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	tshark := func(args ...string) string {
		cmd := exec.Command("tshark", append([]string{"-r", path}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr // tshark warns about running as root there
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tshark %v: %v\n%s", args, err, stderr.String())
		}
		return string(out)
	}
	if m := strings.TrimSpace(tshark("-Y", "_ws.malformed || _ws.expert.severity >= error")); m != "" {
		t.Fatalf("tshark finds malformed packets:\n%s", m[:min(len(m), 2000)])
	}
	lines := strings.Split(strings.TrimSpace(tshark("-Y", "infiniband.smpdirected && infiniband.mad.attributeid == 0x0019 && infiniband.mad.method == 0x02",
		"-T", "fields", "-e", "infiniband.mad.attributemodifier", "-e", "infiniband.smpdirected.hopcount", "-e", "infiniband.linearforwardingtable.port")), "\n")
	if len(lines) != n {
		t.Fatalf("tshark decodes %d LinearForwardingTable SMPs of %d", len(lines), n)
	}
	// the first packet: block 0 of the first switch, which is the SM's (0 hops)
	f := strings.Split(lines[0], "\t")
	ports := strings.Split(f[2], ",")
	num := func(s string) int {
		v, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			t.Fatalf("tshark field %q: %v", s, err)
		}
		return int(v)
	}
	if num(f[0]) != 0 || num(f[1]) != 0 || len(ports) != 64 {
		t.Fatalf("first packet decoded as %q", lines[0])
	}
	own := tab.LFT(tab.Switches()[0])
	for lid := 1; lid < 64 && lid < len(own); lid++ {
		if p := num(ports[lid]); p != int(own[lid]) {
			t.Fatalf("tshark shows port %d for LID %d, ours is %d", p, lid, own[lid])
		}
	}
}
