package mad

import (
	"bytes"
	"testing"
)

// FuzzDecode: no input makes the packet decoder or the pcap reader panic,
// and whatever Decode accepts encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	smp := &SMP{BaseVersion: 1, MgmtClass: MgmtClassDirected, ClassVersion: 1, Method: MethodSet, HopCount: 2, AttrID: AttrLinearFwdTable}
	smp.InitialPath[1], smp.InitialPath[2] = 3, 4
	pkt, err := Encode(&LRH{VL: 15, LNH: LNHIBALocal, DLID: 0xFFFF, SLID: 0xFFFF}, &BTH{OpCode: OpUDSendOnly, PKey: 0xFFFF}, &DETH{}, smp)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pkt)
	var b bytes.Buffer
	w, _ := NewWriter(&b)
	w.Write(pkt)
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		ReadAll(bytes.NewReader(data))
		lrh, bth, deth, s, err := Decode(data)
		if err != nil {
			return
		}
		again, err := Encode(lrh, bth, deth, s)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, data[:len(again)]) {
			t.Fatalf("decode/encode changed the packet")
		}
	})
}
