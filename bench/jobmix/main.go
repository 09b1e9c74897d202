// Command jobmix writes a job file (docs/formats.md) for a fabric as a
// busy cluster runs it: a few ring and tree jobs (all-reduce in rank
// order) of 16 to 64 hosts each, scattered over the fabric's hosts as a
// scheduler leaves them after a while, with drawn weights and one
// communication phase each — drawn from a seed. bench/compare uses it
// with JOBS=SEED.
//
// usage: go run ./bench/jobmix SEED IN.net OUT.jobs [JOBS]
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"slimroute/bench/internal/netcmd"
	"slimroute/fabric"
)

func main() { netcmd.Main("jobmix", run) }

func run(args []string) error {
	if len(args) != 3 && len(args) != 4 {
		return fmt.Errorf("usage: jobmix SEED IN.net OUT.jobs [JOBS]")
	}
	seed, err := netcmd.Seed(args[0])
	if err != nil {
		return err
	}
	count := 4
	if len(args) == 4 {
		if count, err = strconv.Atoi(args[3]); err != nil || count < 1 || count > 64 {
			return fmt.Errorf("jobs %q: want 1..64", args[3])
		}
	}
	f, err := netcmd.Read(args[1])
	if err != nil {
		return err
	}
	var hosts []string
	for _, h := range f.IDsOf(fabric.HCA) {
		name, _ := fabric.HostName(f.Name(h))
		hosts = append(hosts, name)
	}
	text := mix(rand.New(rand.NewPCG(seed, 0x10b5)), hosts, count)
	if text == "" {
		return fmt.Errorf("%s has %d hosts: too few for a job of 16", args[1], len(hosts))
	}
	return os.WriteFile(args[2], []byte(text), 0o644)
}

// mix draws count jobs (fewer where the hosts run out) over distinct
// hosts drawn from hosts, one line each.
func mix(rng *rand.Rand, hosts []string, count int) string {
	free := rng.Perm(len(hosts))
	var b strings.Builder
	k := 0
	for ; k < count && len(free) >= 16; k++ {
		n := min(len(free), 16+rng.IntN(49))
		names := make([]string, n)
		for i, h := range free[:n] {
			names[i] = hosts[h]
		}
		free = free[n:]
		period := 100 * (1 + rng.IntN(3))
		start := rng.IntN(period / 2)
		fmt.Fprintf(&b, "%d %s %s weight=%d period=%d phases=%d-%d\n", 100+k, strings.Join(names, ","),
			[]string{"ring", "tree"}[rng.IntN(2)], 1+rng.IntN(3), period, start, start+1+rng.IntN(period/2))
	}
	if k == 0 {
		return ""
	}
	return fmt.Sprintf("# %d scattered ring and tree jobs (bench/jobmix)\n", k) + b.String()
}
