// Package mad encodes and decodes the InfiniBand management packets that
// program forwarding tables — directed-route SubnSet(LinearForwardingTable)
// SMPs — as gopacket layers, and writes and reads them as pcap files that
// Wireshark/tshark decode.
//
// Field layouts are from the InfiniBand Architecture Specification, vol. 1:
// LRH (§7.7), BTH (§9.2), DETH (§9.3.3), MAD common header (§13.4.3),
// directed-route SMP (§14.2.1.2), LinearForwardingTable (§14.2.5.10).
package mad

import (
	"encoding/binary"
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// Layer types, registered with gopacket.
var (
	LayerTypeLRH  = gopacket.RegisterLayerType(4801, gopacket.LayerTypeMetadata{Name: "InfiniBand LRH", Decoder: gopacket.DecodeFunc(decodeLRH)})
	LayerTypeBTH  = gopacket.RegisterLayerType(4802, gopacket.LayerTypeMetadata{Name: "InfiniBand BTH", Decoder: gopacket.DecodeFunc(decodeBTH)})
	LayerTypeDETH = gopacket.RegisterLayerType(4803, gopacket.LayerTypeMetadata{Name: "InfiniBand DETH", Decoder: gopacket.DecodeFunc(decodeDETH)})
	LayerTypeSMP  = gopacket.RegisterLayerType(4804, gopacket.LayerTypeMetadata{Name: "InfiniBand directed-route SMP", Decoder: gopacket.DecodeFunc(decodeSMP)})
)

// Sizes of the headers, in bytes.
const (
	LRHLen  = 8
	BTHLen  = 12
	DETHLen = 8
	MADLen  = 256
	// PacketLen is an SMP from LRH through ICRC and VCRC.
	PacketLen = LRHLen + BTHLen + DETHLen + MADLen + 4 + 2
)

// Constants of subnet management packets.
const (
	LNHIBALocal        = 2    // LRH.LNH: BTH follows
	OpUDSendOnly       = 0x64 // BTH opcode: UD SEND only
	MgmtClassDirected  = 0x81 // directed-route SMP
	MethodGet          = 0x01
	MethodSet          = 0x02
	AttrLinearFwdTable = 0x0019
	PermissiveLID      = 0xFFFF
)

// LRH is the local route header.
type LRH struct {
	layers.BaseLayer
	VL, LVer, SL, LNH uint8
	DLID, SLID        uint16
	PktLen            uint16 // in 4-byte words, LRH through ICRC
}

func (l *LRH) LayerType() gopacket.LayerType     { return LayerTypeLRH }
func (l *LRH) CanDecode() gopacket.LayerClass    { return LayerTypeLRH }
func (l *LRH) NextLayerType() gopacket.LayerType { return LayerTypeBTH }

func (l *LRH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < LRHLen {
		df.SetTruncated()
		return fmt.Errorf("LRH: %d bytes, want %d", len(data), LRHLen)
	}
	l.VL, l.LVer = data[0]>>4, data[0]&15
	l.SL, l.LNH = data[1]>>4, data[1]&3
	l.DLID = binary.BigEndian.Uint16(data[2:])
	l.PktLen = binary.BigEndian.Uint16(data[4:]) & 0x7FF
	l.SLID = binary.BigEndian.Uint16(data[6:])
	if l.LNH != LNHIBALocal {
		return fmt.Errorf("LRH: next header %d, want %d (IBA local, BTH)", l.LNH, LNHIBALocal)
	}
	l.BaseLayer = layers.BaseLayer{Contents: data[:LRHLen], Payload: data[LRHLen:]}
	return nil
}

func (l *LRH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(LRHLen)
	if err != nil {
		return err
	}
	d[0] = l.VL<<4 | l.LVer&15
	d[1] = l.SL<<4 | l.LNH&3
	binary.BigEndian.PutUint16(d[2:], l.DLID)
	binary.BigEndian.PutUint16(d[4:], l.PktLen&0x7FF)
	binary.BigEndian.PutUint16(d[6:], l.SLID)
	return nil
}

func decodeLRH(data []byte, p gopacket.PacketBuilder) error {
	l := &LRH{}
	if err := l.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(l)
	return p.NextDecoder(l.NextLayerType())
}

// BTH is the base transport header.
type BTH struct {
	layers.BaseLayer
	OpCode        uint8
	SE, M, AckReq bool
	PadCnt, TVer  uint8
	PKey          uint16
	DestQP, PSN   uint32
}

func (h *BTH) LayerType() gopacket.LayerType     { return LayerTypeBTH }
func (h *BTH) CanDecode() gopacket.LayerClass    { return LayerTypeBTH }
func (h *BTH) NextLayerType() gopacket.LayerType { return LayerTypeDETH }

func (h *BTH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < BTHLen {
		df.SetTruncated()
		return fmt.Errorf("BTH: %d bytes, want %d", len(data), BTHLen)
	}
	h.OpCode = data[0]
	h.SE, h.M = data[1]&0x80 != 0, data[1]&0x40 != 0
	h.PadCnt, h.TVer = data[1]>>4&3, data[1]&15
	h.PKey = binary.BigEndian.Uint16(data[2:])
	h.DestQP = binary.BigEndian.Uint32(data[4:]) & 0xFFFFFF
	h.AckReq = data[8]&0x80 != 0
	h.PSN = binary.BigEndian.Uint32(data[8:]) & 0xFFFFFF
	if h.OpCode != OpUDSendOnly {
		return fmt.Errorf("BTH: opcode 0x%02x, want UD SEND only (0x%02x)", h.OpCode, OpUDSendOnly)
	}
	h.BaseLayer = layers.BaseLayer{Contents: data[:BTHLen], Payload: data[BTHLen:]}
	return nil
}

func (h *BTH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(BTHLen)
	if err != nil {
		return err
	}
	d[0] = h.OpCode
	d[1] = h.PadCnt&3<<4 | h.TVer&15
	if h.SE {
		d[1] |= 0x80
	}
	if h.M {
		d[1] |= 0x40
	}
	binary.BigEndian.PutUint16(d[2:], h.PKey)
	binary.BigEndian.PutUint32(d[4:], h.DestQP&0xFFFFFF)
	binary.BigEndian.PutUint32(d[8:], h.PSN&0xFFFFFF)
	if h.AckReq {
		d[8] |= 0x80
	}
	return nil
}

func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	h := &BTH{}
	if err := h.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(h)
	return p.NextDecoder(h.NextLayerType())
}

// DETH is the datagram extended transport header.
type DETH struct {
	layers.BaseLayer
	QKey, SrcQP uint32
}

func (h *DETH) LayerType() gopacket.LayerType     { return LayerTypeDETH }
func (h *DETH) CanDecode() gopacket.LayerClass    { return LayerTypeDETH }
func (h *DETH) NextLayerType() gopacket.LayerType { return LayerTypeSMP }

func (h *DETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < DETHLen {
		df.SetTruncated()
		return fmt.Errorf("DETH: %d bytes, want %d", len(data), DETHLen)
	}
	h.QKey = binary.BigEndian.Uint32(data)
	h.SrcQP = binary.BigEndian.Uint32(data[4:]) & 0xFFFFFF
	h.BaseLayer = layers.BaseLayer{Contents: data[:DETHLen], Payload: data[DETHLen:]}
	return nil
}

func (h *DETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(DETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(d, h.QKey)
	binary.BigEndian.PutUint32(d[4:], h.SrcQP&0xFFFFFF)
	return nil
}

func decodeDETH(data []byte, p gopacket.PacketBuilder) error {
	h := &DETH{}
	if err := h.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(h)
	return p.NextDecoder(h.NextLayerType())
}

// SMP is a directed-route subnet management packet: the MAD common header,
// the directed-route fields and the 64-byte attribute data. For the
// LinearForwardingTable attribute, Data holds the egress ports of the 64
// LIDs of block AttrMod.
type SMP struct {
	layers.BaseLayer
	BaseVersion, MgmtClass, ClassVersion, Method uint8
	Direction                                    bool   // D bit: set on responses
	Status                                       uint16 // 15 bits
	HopPointer, HopCount                         uint8
	TID                                          uint64
	AttrID                                       uint16
	AttrMod                                      uint32
	MKey                                         uint64
	DrSLID, DrDLID                               uint16
	Data                                         [64]byte
	InitialPath, ReturnPath                      [64]byte
}

func (s *SMP) LayerType() gopacket.LayerType     { return LayerTypeSMP }
func (s *SMP) CanDecode() gopacket.LayerClass    { return LayerTypeSMP }
func (s *SMP) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

func (s *SMP) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < MADLen {
		df.SetTruncated()
		return fmt.Errorf("SMP: %d bytes, want %d", len(data), MADLen)
	}
	s.BaseVersion, s.MgmtClass, s.ClassVersion, s.Method = data[0], data[1], data[2], data[3]&0x7F
	st := binary.BigEndian.Uint16(data[4:])
	s.Direction, s.Status = st&0x8000 != 0, st&0x7FFF
	s.HopPointer, s.HopCount = data[6], data[7]
	s.TID = binary.BigEndian.Uint64(data[8:])
	s.AttrID = binary.BigEndian.Uint16(data[16:])
	s.AttrMod = binary.BigEndian.Uint32(data[20:])
	s.MKey = binary.BigEndian.Uint64(data[24:])
	s.DrSLID = binary.BigEndian.Uint16(data[32:])
	s.DrDLID = binary.BigEndian.Uint16(data[34:])
	copy(s.Data[:], data[64:128])
	copy(s.InitialPath[:], data[128:192])
	copy(s.ReturnPath[:], data[192:256])
	if s.MgmtClass != MgmtClassDirected {
		return fmt.Errorf("MAD class 0x%02x, want directed-route SMP (0x%02x)", s.MgmtClass, MgmtClassDirected)
	}
	if s.HopCount > 63 {
		return fmt.Errorf("SMP: hop count %d, at most 63", s.HopCount)
	}
	s.BaseLayer = layers.BaseLayer{Contents: data[:MADLen], Payload: data[MADLen:]}
	return nil
}

func (s *SMP) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(MADLen)
	if err != nil {
		return err
	}
	clear(d)
	d[0], d[1], d[2], d[3] = s.BaseVersion, s.MgmtClass, s.ClassVersion, s.Method&0x7F
	st := s.Status & 0x7FFF
	if s.Direction {
		st |= 0x8000
	}
	binary.BigEndian.PutUint16(d[4:], st)
	d[6], d[7] = s.HopPointer, s.HopCount
	binary.BigEndian.PutUint64(d[8:], s.TID)
	binary.BigEndian.PutUint16(d[16:], s.AttrID)
	binary.BigEndian.PutUint32(d[20:], s.AttrMod)
	binary.BigEndian.PutUint64(d[24:], s.MKey)
	binary.BigEndian.PutUint16(d[32:], s.DrSLID)
	binary.BigEndian.PutUint16(d[34:], s.DrDLID)
	copy(d[64:], s.Data[:])
	copy(d[128:], s.InitialPath[:])
	copy(d[192:], s.ReturnPath[:])
	return nil
}

func decodeSMP(data []byte, p gopacket.PacketBuilder) error {
	s := &SMP{}
	if err := s.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(s)
	return nil
}
