package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"slimroute/pipeline"
)

// routeSettings are the settings a routing was asked for, as summary.json
// records them ("settings"). --previous reads them back: a run that asks
// for another routing (--layers 8 where the previous routing has 4) cannot
// be served by a repair, which keeps the previous layers, LIDs and SLs; and
// a full recompute takes the previous settings for the flags the run
// leaves out, so it computes the same kind of routing. Each JSON name is
// its flag's with "_" for "-".
type routeSettings struct {
	Layers         int    `json:"layers"`
	MinLen         int    `json:"min_len"`
	MaxLen         int    `json:"max_len"`
	Seed           uint64 `json:"seed"`
	Trees          int    `json:"trees"`
	Regrow         bool   `json:"regrow"`
	Deadlock       string `json:"deadlock"`
	VLs            int    `json:"vls"`
	LMC            int    `json:"lmc"` // -1: log2 of layers
	BestEffort     bool   `json:"best_effort"`
	LFTCap         int    `json:"lft_cap"`
	LIDsFromFabric bool   `json:"lids_from_fabric"`
}

func settingsOf(cfg pipeline.Config) *routeSettings {
	return &routeSettings{cfg.Layers, cfg.MinLen, cfg.MaxLen, cfg.Seed, cfg.Trees, cfg.Regrow == nil || *cfg.Regrow, cfg.Deadlock,
		cfg.VLs, cfg.LMC, cfg.BestEffort, cfg.LFTCap, cfg.LIDsFromFabric}
}

func (s *routeSettings) apply(cfg *pipeline.Config) {
	cfg.Layers, cfg.MinLen, cfg.MaxLen, cfg.Seed, cfg.Trees, cfg.Regrow, cfg.Deadlock = s.Layers, s.MinLen, s.MaxLen, s.Seed, s.Trees, &s.Regrow, s.Deadlock
	cfg.VLs, cfg.LMC, cfg.BestEffort, cfg.LFTCap, cfg.LIDsFromFabric = s.VLs, s.LMC, s.BestEffort, s.LFTCap, s.LIDsFromFabric
}

// hardware are the settings that describe the switches, not the routing:
// a run may correct them without asking for another routing (the repair
// checks the tables against them).
var hardware = []string{"vls"}

// previousSummary is what --previous reads of summary.json: the settings
// the routing was asked for (nil for a routing of an older slimroute,
// which records none), and whether it is a repair and of which base.
type previousSummary struct {
	Settings *routeSettings `json:"settings"`
	Previous *string        `json:"previous"` // a repair's: the directory it repaired
	Base     string         `json:"base"`     // a repair's: its base (see baseOf)
	Jobs     *struct {
		Text    *string  `json:"text"` // nil: an older slimroute's, which kept no text
		History []string `json:"history"`
	} `json:"jobs"`
	missing error // the file's absence (an older slimroute's routing)
}

// readSummary reads dir/summary.json, once for the settings and the base;
// a missing file reads as one without settings.
func readSummary(dir string) (*previousSummary, error) {
	path := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &previousSummary{missing: err}, nil
	}
	if err != nil {
		return nil, err
	}
	var sum previousSummary
	b = bytes.TrimPrefix(b, []byte("\ufeff")) // a byte order mark, if an editor wrote one
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &sum, nil
}

// reconcile merges the previous routing's settings prev into cfg, the
// settings of this run (isSet tells which flags the run gave): the flags
// left out take prev's values. It returns the first flag given whose
// value differs from prev's, as a reason not to repair, or "" when this
// run asks for the routing prev describes. With prev unknown (nil), every
// routing flag given is such a reason.
func reconcile(prev *routeSettings, cfg *pipeline.Config, isSet func(string) bool) (string, error) {
	now, err := settingsMap(settingsOf(*cfg))
	if err != nil {
		return "", err
	}
	var was map[string]json.RawMessage
	if prev != nil {
		if was, err = settingsMap(prev); err != nil {
			return "", err
		}
	}
	names := make([]string, 0, len(now))
	for name := range now {
		names = append(names, name)
	}
	slices.Sort(names)
	conflict := ""
	for _, name := range names {
		flag := strings.ReplaceAll(name, "_", "-")
		switch {
		case !isSet(flag) && was != nil:
			now[name] = was[name]
		case !isSet(flag) || slices.Contains(hardware, flag) || conflict != "":
		case was == nil:
			conflict = fmt.Sprintf("it records no settings to compare --%s with", flag)
		case !bytes.Equal(was[name], now[name]):
			plain := func(v json.RawMessage) string {
				if flag == "lmc" && string(v) == "-1" {
					return "unset (log2 of --layers)"
				}
				return strings.Trim(string(v), `"`)
			}
			conflict = fmt.Sprintf("it was made with --%s %s, this run asks for --%s %s", flag, plain(was[name]), flag, plain(now[name]))
		}
	}
	b, err := json.Marshal(now)
	if err != nil {
		return "", err
	}
	var merged routeSettings
	if err := json.Unmarshal(b, &merged); err != nil {
		return "", err
	}
	merged.apply(cfg)
	return conflict, nil
}

// settingsMap is s as JSON values by name.
func settingsMap(s *routeSettings) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	return m, json.Unmarshal(b, &m)
}
