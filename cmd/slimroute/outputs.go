package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"slimroute/internal/atomicfile"
)

// outputFile is one file a command writes, named relative to its output
// directory.
type outputFile struct {
	name  string
	write func(io.Writer) error
}

// jsonFile is the file name holding v as indented JSON. v is encoded when
// the file is written, so it may be completed until then.
func jsonFile(name string, v any) outputFile {
	return outputFile{name, func(w io.Writer) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err == nil {
			_, err = w.Write(append(b, '\n'))
		}
		return err
	}}
}

// fileNames lists the names of files, in order.
func fileNames(files []outputFile) []string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	return names
}

// writeOutputs writes files into dir (made if missing) as one set: each
// is written in full, in order, before any replaces its target, so an
// error or an interrupt leaves every file of the set as it was
// (atomicfile.WriteAll). flag is the flag that named dir, for the advice
// when something other than a file stands where one goes.
func writeOutputs(dir, flag string, files []outputFile) error {
	return writeOutputsReusing(dir, flag, files, nil)
}

// writeOutputsReusing is writeOutputs, each file that same names being
// that file instead (reuseUnchanged, atomicfile.File.Same).
func writeOutputsReusing(dir, flag string, files []outputFile, same map[string]string) error {
	if err := outputDir(dir, flag); err != nil {
		return err
	}
	out := make([]atomicfile.File, len(files))
	for i, f := range files {
		out[i] = atomicfile.File{Path: filepath.Join(dir, f.name), Perm: 0o644, Write: f.write, Same: same[f.name]}
	}
	return adviseOutput(atomicfile.WriteAll(out...), "move it away, or name another "+flag+" DIR")
}

// outputDir refuses, by the flag that named it, an output directory that
// is a file.
func outputDir(dir, flag string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s %s is not a directory; name a directory (made if missing)", flag, dir)
	}
	return nil
}

// toStandardOutput is the advice for a command that writes one file (-o
// FILE) when something other than a file stands where it goes.
const toStandardOutput = "name a file, or - for standard output"

// adviseOutput adds advice to err when it refuses an output path for what
// stands there (a directory, a block device or a socket).
func adviseOutput(err error, advice string) error {
	var notFile *atomicfile.NotAFileError
	if errors.As(err, &notFile) {
		return fmt.Errorf("%w; %s", err, advice)
	}
	return err
}

// openInput opens an input file; a directory is refused by name at once
// (reading one fails with "read X: is a directory", which readers then
// wrap in advice about formats).
func openInput(path string) (*os.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := fh.Stat(); err == nil && fi.IsDir() {
		fh.Close()
		return nil, fmt.Errorf("%s is a directory; name a file", path)
	}
	return fh, nil
}
