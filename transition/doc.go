// Package transition judges a switch-over between two forwarding states of
// one fabric: what the fabric can do while a subnet manager replaces the
// old tables by the new ones.
//
// OpenSM programs the switches one after the other, so for a while some
// switches forward a LID by their old LFT entry and others by their new one;
// hosts hold old or new path records (path SLs), and each switch holds its
// old or its new SL-to-VL tables. A mix is any such choice. Check takes the
// union of every mix:
//
//   - Forwarding loops. For each destination LID the graph whose edges are
//     every switch's old and new next hop must be acyclic; a cycle is a loop
//     some mix has even when neither state has it alone.
//   - Credit loops. A channel is (switch, egress port, VL) on a
//     switch-to-switch cable. A packet from HCA port A to LID D with SL
//     (A's old or new path SL to D), entering switch s on port in and leaving
//     on out (s's old or new entry for D), travels on SL2VL_s(in, out, SL) of
//     s's old or new table; two consecutive switch-to-switch hops of one
//     packet make a dependency from the first channel to the second. The
//     graph of all dependencies any mix makes must be acyclic. The HCA's
//     cable to its switch is no channel: a packet's chain starts at its
//     first switch-to-switch channel.
//   - Dead ends. For every LID both states route, every mix must deliver
//     every packet: an entry that drops, names a port without a cable, leads
//     to an HCA port or a switch that does not hold the LID, or an SL the
//     SL-to-VL table (or the sending HCA's) maps to VL 15 is a finding.
//
// The number of mixed paths grows as 2^hops, so Check never enumerates
// paths: per destination LID it expands each state (switch, in port, SL)
// once, with both next hops and both VLs, and adds the dependencies
// between the channels of a state and those of the states it leads to.
// Since a packet's next hop and VL depend on (switch, in port, SL, LID)
// alone, not on the VL it arrived on, the union of these dependencies is
// exactly the union over all mixes whenever no forwarding loop exists (a
// packet then meets every switch once, so choosing per hop is choosing per
// switch); with a loop it also holds the dependencies of a looping packet
// that meets a switch before and after it changes.
//
// The work is bounded: Check refuses (with an error) fabrics whose
// worst case exceeds MaxStates states; the fabrics slimroute builds
// (hundreds of switches, thousands of HCAs, LMC 2) are far below it.
package transition
