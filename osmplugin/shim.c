//go:build osmplugin

// The OpenSM side of the slimroute plugin: it only translates. OpenSM's
// subnet goes out as slimroute JSON; tables, path SLs and SL2VL come back
// from the Go side (plugin.go). Facts about the plugin interface are from
// OpenSM 3.3.23's headers (libopensm-dev) and ../shared/docs.

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_config.h>
#include <complib/cl_qmap.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_version.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_subnet.h>
#include <iba/ib_types.h>

#include "_cgo_export.h"

typedef struct {
	osm_opensm_t *osm;
} slimroute_ctx_t;

/* OpenSM's log, for lines the Go side writes from its own threads
 * (osm_log takes its own lock) */
static osm_log_t *plugin_log;

void slimroute_log_line(int error, const char *text)
{
	if (plugin_log)
		OSM_LOG(plugin_log, error ? OSM_LOG_ERROR : OSM_LOG_INFO, "%s\n", text);
}

typedef struct {
	char *p;
	size_t n, cap;
} buf_t;

static void bput(buf_t *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int w = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (w < 0)
			return;
		if (b->p && b->n + (size_t)w < b->cap) {
			b->n += (size_t)w;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 1 << 16;
		while (cap < b->n + (size_t)w + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return;
		b->p = p;
		b->cap = cap;
	}
}

/* A node's name in the JSON: its description (made JSON-safe) and GUID,
 * unique even where descriptions repeat. */
static void put_name(buf_t *b, osm_node_t *node)
{
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];
	memcpy(desc, node->node_desc.description, IB_NODE_DESCRIPTION_SIZE);
	desc[IB_NODE_DESCRIPTION_SIZE] = 0;
	for (char *c = desc; *c; c++)
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
			*c = '?';
	size_t n = strlen(desc);
	while (n > 0 && desc[n - 1] == ' ')
		desc[--n] = 0;
	bput(b, "\"%s (0x%016" PRIx64 ")\"", desc, cl_ntoh64(osm_node_get_node_guid(node)));
}

static int usable(osm_node_t *node)
{
	uint8_t t = osm_node_get_type(node);
	return t == IB_NODE_TYPE_SWITCH || t == IB_NODE_TYPE_CA;
}

static void put_port_attr(buf_t *b, osm_subn_t *subn, osm_physp_t *physp, int num, int *first)
{
	ib_net64_t pg = osm_physp_get_port_guid(physp);
	osm_port_t *port = osm_get_port_by_guid(subn, pg);
	if (!port)
		return;
	uint16_t lo = 0, hi = 0;
	osm_port_get_lid_range_ho(port, &lo, &hi);
	if (lo == 0)
		return;
	int lmc = 0;
	while ((1 << lmc) < hi - lo + 1)
		lmc++;
	bput(b, "%s{\"port\":%d,\"guid\":\"0x%016" PRIx64 "\",\"lid\":%u,\"lmc\":%d}", *first ? "" : ",", num, cl_ntoh64(pg), lo, lmc);
	*first = 0;
}

/* The subnet as slimroute's JSON fabric ("slimroute-fabric/1"). */
static buf_t subnet_json(osm_opensm_t *osm)
{
	osm_subn_t *subn = &osm->subn;
	buf_t b = {0};
	cl_map_item_t *it;
	int first = 1;
	bput(&b, "{\"format\":\"slimroute-fabric/1\",\"nodes\":[");
	for (it = cl_qmap_head(&subn->node_guid_tbl); it != cl_qmap_end(&subn->node_guid_tbl); it = cl_qmap_next(it)) {
		osm_node_t *node = (osm_node_t *)it;
		if (!usable(node))
			continue;
		int sw = osm_node_get_type(node) == IB_NODE_TYPE_SWITCH;
		int nports = osm_node_get_num_physp(node) - 1;
		bput(&b, "%s{\"name\":", first ? "" : ",");
		first = 0;
		put_name(&b, node);
		bput(&b, ",\"kind\":\"%s\",\"guid\":\"0x%016" PRIx64 "\",\"ports\":%d,\"port_attrs\":[",
		     sw ? "switch" : "hca", cl_ntoh64(osm_node_get_node_guid(node)), nports);
		int afirst = 1;
		if (sw) {
			osm_physp_t *p0 = osm_node_get_physp_ptr(node, 0);
			if (p0)
				put_port_attr(&b, subn, p0, 0, &afirst);
		} else {
			for (int p = 1; p <= nports; p++) {
				osm_physp_t *physp = osm_node_get_physp_ptr(node, p);
				if (physp && osm_physp_is_valid(physp) && osm_physp_get_remote(physp))
					put_port_attr(&b, subn, physp, p, &afirst);
			}
		}
		bput(&b, "]}");
	}
	bput(&b, "],\"links\":[");
	first = 1;
	for (it = cl_qmap_head(&subn->node_guid_tbl); it != cl_qmap_end(&subn->node_guid_tbl); it = cl_qmap_next(it)) {
		osm_node_t *node = (osm_node_t *)it;
		if (!usable(node))
			continue;
		uint64_t g = cl_ntoh64(osm_node_get_node_guid(node));
		int nports = osm_node_get_num_physp(node) - 1;
		for (int p = 1; p <= nports; p++) {
			osm_physp_t *physp = osm_node_get_physp_ptr(node, p);
			if (!physp || !osm_physp_is_valid(physp))
				continue;
			osm_physp_t *remote = osm_physp_get_remote(physp);
			if (!remote)
				continue;
			osm_node_t *rnode = osm_physp_get_node_ptr(remote);
			if (!rnode || !usable(rnode))
				continue;
			uint64_t rg = cl_ntoh64(osm_node_get_node_guid(rnode));
			int rp = osm_physp_get_port_num(remote);
			if (g > rg || (g == rg && p > rp))
				continue; /* listed from the other end */
			bput(&b, "%s{\"a\":{\"node\":", first ? "" : ",");
			first = 0;
			put_name(&b, node);
			bput(&b, ",\"port\":%d},\"b\":{\"node\":", p);
			put_name(&b, rnode);
			bput(&b, ",\"port\":%d}}", rp);
		}
	}
	bput(&b, "]}");
	return b;
}

/* The plugin's settings file (event_plugin_options), "" for the defaults. */
static char *settings_path(osm_opensm_t *osm)
{
	return osm->subn.opt.event_plugin_options ? osm->subn.opt.event_plugin_options : (char *)"";
}

static int slimroute_build_lid_matrices(void *context)
{
	return 1; /* OpenSM's own min-hop matrices serve the SA's hop counts */
}

static int slimroute_ucast_build_fwd_tables(void *context)
{
	slimroute_ctx_t *ctx = context;
	osm_opensm_t *osm = ctx->osm;
	osm_subn_t *subn = &osm->subn;
	char msg[4096];
	const char *cfg = settings_path(osm);

	OSM_LOG(&osm->log, OSM_LOG_INFO, "slimroute: routing the subnet\n");
	buf_t b = subnet_json(osm);
	if (!b.p) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "slimroute: out of memory describing the subnet\n");
		return -1;
	}
	/* the audit files go beside OpenSM's dumps, when it writes them */
	const char *dumps = osm_log_is_active(&osm->log, OSM_LOG_ROUTING) && subn->opt.dump_files_dir ? subn->opt.dump_files_dir : "";
	int rc = slimrouteCompute(b.p, (int)b.n, (char *)cfg, (char *)dumps, msg, sizeof(msg));
	free(b.p);
	if (rc != 0) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "slimroute: no tables programmed, OpenSM falls back to the next engine: %s\n", msg);
		return -1;
	}
	OSM_LOG(&osm->log, OSM_LOG_INFO, "%s\n", msg);

	uint16_t max = subn->max_ucast_lid_ho;
	uint8_t *tab = malloc((size_t)max + 1);
	if (!tab)
		return -1;
	cl_map_item_t *it;
	/* every switch must be known before any table is touched */
	for (it = cl_qmap_head(&subn->sw_guid_tbl); it != cl_qmap_end(&subn->sw_guid_tbl); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;
		if (slimrouteLFT(cl_ntoh64(osm_node_get_node_guid(sw->p_node)), tab, max + 1) < 0) {
			OSM_LOG(&osm->log, OSM_LOG_ERROR, "slimroute: switch 0x%016" PRIx64 " has no table\n", cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
			free(tab);
			return -1;
		}
	}
	for (it = cl_qmap_head(&subn->sw_guid_tbl); it != cl_qmap_end(&subn->sw_guid_tbl); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;
		int n = slimrouteLFT(cl_ntoh64(osm_node_get_node_guid(sw->p_node)), tab, max + 1);
		if (n < 0) {
			OSM_LOG(&osm->log, OSM_LOG_ERROR, "slimroute: switch 0x%016" PRIx64 " lost its table; OpenSM falls back to the next engine\n", cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
			free(tab);
			return -1;
		}
		for (int lid = 1; lid < n && lid <= max && lid < sw->lft_size; lid++) {
			if (tab[lid] == 0xFF || tab[lid] >= sw->num_ports)
				continue;
			sw->new_lft[lid] = tab[lid];
			osm_switch_count_path(sw, tab[lid]);
		}
	}
	free(tab);
	return 0;
}

static uint8_t slimroute_path_sl(void *context, uint8_t hint, const ib_net16_t slid, const ib_net16_t dlid)
{
	return slimroutePathSL(cl_ntoh16(slid), cl_ntoh16(dlid));
}

static void slimroute_update_sl2vl(void *context, osm_physp_t *port, uint8_t in, uint8_t out, ib_slvl_table_t *t)
{
	osm_node_t *node = osm_physp_get_node_ptr(port);
	uint64_t g = cl_ntoh64(osm_node_get_node_guid(node));
	/* an end port's table is asked for as in 0, out 0: name the port */
	if (osm_node_get_type(node) != IB_NODE_TYPE_SWITCH)
		out = osm_physp_get_port_num(port);
	for (uint8_t sl = 0; sl < IB_MAX_NUM_VLS; sl++)
		ib_slvl_table_set(t, sl, slimrouteSL2VL(g, in, out, sl));
}

static void slimroute_destroy(void *context)
{
}

static int slimroute_setup(struct osm_routing_engine *re, struct osm_opensm *osm)
{
	re->build_lid_matrices = slimroute_build_lid_matrices;
	re->ucast_build_fwd_tables = slimroute_ucast_build_fwd_tables;
	re->path_sl = slimroute_path_sl;
	re->update_sl2vl = slimroute_update_sl2vl;
	re->destroy = slimroute_destroy;
	return 0;
}

static void *slimroute_create(struct osm_opensm *osm)
{
	slimroute_ctx_t *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->osm = osm;
	static external_routing_engine_module_t module = {"slimroute", slimroute_setup, NULL};
	module.context = ctx;
	if (osm_register_external_routing_engine(osm, &module, ctx) != CL_SUCCESS) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "slimroute: could not register the routing engine\n");
		free(ctx);
		return NULL;
	}
	OSM_LOG(&osm->log, OSM_LOG_INFO, "slimroute: routing engine registered; select it with routing_engine slimroute in opensm.conf, or -R slimroute (settings: %s)\n",
		osm->subn.opt.event_plugin_options ? osm->subn.opt.event_plugin_options : "defaults");
	plugin_log = &osm->log;
	/* a plan in the settings is routed meanwhile, outside OpenSM's lock */
	slimroutePrepare(settings_path(osm));
	return ctx;
}

/* At the end of a heavy sweep OpenSM has discovered the subnet but not yet
 * assigned LIDs nor set the ports up. Before the first routing, the
 * subnet is described then and routed in the background meanwhile
 * (slimrouteAhead); the routing inside the lock takes those layers when
 * the subnet still fits. OpenSM does not hold its lock here: the
 * description takes it for reading, as the SA does. */
static void slimroute_report(void *data, osm_epi_event_id_t id, void *event_data)
{
	slimroute_ctx_t *ctx = data;
	osm_opensm_t *osm = ctx->osm;
	const char *engines = osm->subn.opt.routing_engine_names;
	/* only where OpenSM routes with slimroute */
	if (id != OSM_EVENT_ID_HEAVY_SWEEP_DONE || !engines || !strstr(engines, "slimroute") || !slimrouteWantsAhead())
		return;
	CL_PLOCK_ACQUIRE(&osm->lock);
	buf_t b = subnet_json(osm);
	CL_PLOCK_RELEASE(&osm->lock);
	if (!b.p)
		return; /* out of memory: the routing describes the subnet itself */
	slimrouteAhead(b.p, (int)b.n, settings_path(osm));
	free(b.p);
}

static void slimroute_delete(void *data)
{
	plugin_log = NULL; /* OpenSM's log goes before the Go side's threads */
	free(data);
}

osm_event_plugin_t osm_event_plugin = {
	OSM_VERSION,
	slimroute_create,
	slimroute_delete,
	slimroute_report,
};
