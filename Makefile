# slimroute: the CLI, the OpenSM plugin, and the tests.
# The Go toolchain does the work; this file only names the common commands.

PLUGIN_DIR ?= build

.PHONY: all slimroute plugin install-plugin test

all: slimroute

slimroute:
	go build -o slimroute ./cmd/slimroute

# The OpenSM routing-engine plugin: needs Debian's libopensm-dev and
# libibumad-dev (OpenSM 3.3.23 headers; the plugin must match the running
# OpenSM's version string exactly).
plugin:
	go build -buildmode=c-shared -tags osmplugin -o $(PLUGIN_DIR)/libslimroute.so ./osmplugin

# Installs the plugin where OpenSM's dlopen("libslimroute.so") finds it.
install-plugin: plugin
	install -m 0644 $(PLUGIN_DIR)/libslimroute.so /usr/lib/x86_64-linux-gnu/libslimroute.so
	ldconfig

test:
	./scripts/test
