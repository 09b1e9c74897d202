package mad

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// LinkTypeERF is pcap's link type for Endace ERF records. tshark 4.0 does not
// decode InfiniBand from link type 247 (INFINIBAND), but it does inside ERF
// records of type 21, the layout ibdump captures use.
const LinkTypeERF layers.LinkType = 197

const (
	erfHeaderLen   = 16
	erfTypeIB      = 21
	erfFlagVarLen  = 0x04
	icrcLen        = 4
	vcrcLen        = 2
	maxPacketBytes = 4096
)

// Encode serialises an SMP in an LRH/BTH/DETH packet with its ICRC and VCRC.
func Encode(lrh *LRH, bth *BTH, deth *DETH, smp *SMP) ([]byte, error) {
	lrh.PktLen = (LRHLen + BTHLen + DETHLen + MADLen + icrcLen) / 4
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, lrh, bth, deth, smp); err != nil {
		return nil, err
	}
	pkt := append([]byte(nil), buf.Bytes()...)
	pkt = binary.LittleEndian.AppendUint32(pkt, icrc(pkt))
	return binary.BigEndian.AppendUint16(pkt, vcrc(pkt)), nil
}

// Decode parses a packet written by Encode (or captured off a link),
// checking its length and CRCs.
func Decode(pkt []byte) (*LRH, *BTH, *DETH, *SMP, error) {
	if len(pkt) < PacketLen {
		return nil, nil, nil, nil, fmt.Errorf("packet of %d bytes; an SMP has %d", len(pkt), PacketLen)
	}
	body := pkt[:len(pkt)-vcrcLen]
	if got, want := binary.BigEndian.Uint16(pkt[len(pkt)-vcrcLen:]), vcrc(body); got != want {
		return nil, nil, nil, nil, fmt.Errorf("VCRC 0x%04x, want 0x%04x", got, want)
	}
	inv := body[:len(body)-icrcLen]
	if got, want := binary.LittleEndian.Uint32(body[len(body)-icrcLen:]), icrc(inv); got != want {
		return nil, nil, nil, nil, fmt.Errorf("ICRC 0x%08x, want 0x%08x", got, want)
	}
	p := gopacket.NewPacket(inv, LayerTypeLRH, gopacket.DecodeOptions{NoCopy: true})
	if e := p.ErrorLayer(); e != nil {
		return nil, nil, nil, nil, e.Error()
	}
	lrh, _ := p.Layer(LayerTypeLRH).(*LRH)
	bth, _ := p.Layer(LayerTypeBTH).(*BTH)
	deth, _ := p.Layer(LayerTypeDETH).(*DETH)
	smp, _ := p.Layer(LayerTypeSMP).(*SMP)
	if lrh == nil || bth == nil || deth == nil || smp == nil {
		return nil, nil, nil, nil, errors.New("not an LRH/BTH/DETH/SMP packet")
	}
	if int(lrh.PktLen)*4 != len(inv)+icrcLen {
		return nil, nil, nil, nil, fmt.Errorf("LRH packet length %d words, packet has %d bytes", lrh.PktLen, len(inv)+icrcLen)
	}
	return lrh, bth, deth, smp, nil
}

// icrc is the invariant CRC (IBA §7.8.1): CRC-32 with Ethernet's polynomial
// over the packet with its variant fields — LRH.VL and BTH's reserved byte
// — set to ones.
func icrc(pkt []byte) uint32 {
	masked := append([]byte(nil), pkt...)
	masked[0] |= 0xF0
	masked[LRHLen+4] = 0xFF
	return crc32.ChecksumIEEE(masked)
}

// vcrc is the variant CRC (IBA §7.8.2): CRC-16, polynomial 0x100B, seed
// 0xFFFF, over the whole packet through the ICRC, complemented.
func vcrc(pkt []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, b := range pkt {
		crc ^= uint16(b) << 8
		for i := 0; i < 8; i++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x100B
			} else {
				crc <<= 1
			}
		}
	}
	return ^crc
}

// Writer writes packets to a pcap file, each in an ERF record.
type Writer struct {
	w     *pcapgo.Writer
	start time.Time
	n     int
}

// epoch is the capture time of the first packet: fixed, so the same
// packets give the same file.
var epoch = time.Date(2024, 4, 16, 0, 0, 0, 0, time.UTC)

// NewWriter writes the pcap file header.
func NewWriter(w io.Writer) (*Writer, error) {
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(maxPacketBytes+erfHeaderLen, LinkTypeERF); err != nil {
		return nil, err
	}
	return &Writer{w: pw, start: epoch}, nil
}

// Write appends one packet, one microsecond after the previous.
func (w *Writer) Write(pkt []byte) error {
	ts := w.start.Add(time.Duration(w.n) * time.Microsecond)
	w.n++
	rec := make([]byte, erfHeaderLen, erfHeaderLen+len(pkt))
	// ERF timestamp: seconds in the high 32 bits, binary fraction below
	frac := uint64(ts.Nanosecond()) << 32 / 1e9
	binary.LittleEndian.PutUint64(rec[0:], uint64(ts.Unix())<<32|frac)
	rec[8] = erfTypeIB
	rec[9] = erfFlagVarLen
	binary.BigEndian.PutUint16(rec[10:], uint16(erfHeaderLen+len(pkt)))
	binary.BigEndian.PutUint16(rec[12:], 0) // loss counter
	binary.BigEndian.PutUint16(rec[14:], uint16(len(pkt)))
	rec = append(rec, pkt...)
	return w.w.WritePacket(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(rec), Length: len(rec)}, rec)
}

// ReadAll returns the InfiniBand packets of a pcap file written by Writer
// (or by ibdump): ERF records of type INFINIBAND, headers stripped.
func ReadAll(r io.Reader) ([][]byte, error) {
	pr, err := pcapgo.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not a pcap file: %w", err)
	}
	// a hostile header may claim a huge snap length; no SMP needs more
	pr.SetSnaplen(maxPacketBytes + erfHeaderLen)
	if pr.LinkType() != LinkTypeERF {
		return nil, fmt.Errorf("pcap link type %d, want ERF (%d)", pr.LinkType(), LinkTypeERF)
	}
	var out [][]byte
	for i := 1; ; i++ {
		data, _, err := pr.ReadPacketData()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("packet %d: %w", i, err)
		}
		if len(data) < erfHeaderLen || data[8]&0x7F != erfTypeIB {
			return nil, fmt.Errorf("packet %d: not an InfiniBand ERF record", i)
		}
		rlen := int(binary.BigEndian.Uint16(data[10:]))
		if rlen > len(data) || rlen < erfHeaderLen {
			return nil, fmt.Errorf("packet %d: ERF record length %d, captured %d", i, rlen, len(data))
		}
		out = append(out, data[erfHeaderLen:rlen])
	}
}
