// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The launcher of the dev clusters whose server still takes plugins from the class path
 * (Elasticsearch 7.x, OpenSearch 1.x: {@code Node(Environment, Collection<Class<? extends
 * Plugin>>, boolean)}), free of either's classes: the per-engine subclass builds a node from
 * plain settings; health and voting exclusions go through each node's own HTTP API (as
 * EsLauncher does), so one source serves both packages ({@code org.elasticsearch},
 * {@code org.opensearch}).
 *
 * <p>Node settings as in the other launchers: loopback only, fixed ports, roles master, data,
 * ingest (the 7.x / 1.x names), {@code discovery.type=single-node} for one node, else seed
 * hosts and {@code cluster.initial_master_nodes=[node-0]}, no disk threshold, no real-memory
 * breaker, the index buffer shared by the nodes of one heap.
 */
abstract class ClasspathLauncher extends LauncherBase {

    /** A started node, as the per-engine subclass holds it. */
    interface NodeHandle {
        /** Starts the node (binds HTTP and transport). */
        void start() throws Exception;

        /** Closes the node and waits up to the given seconds; false on time-out. */
        boolean close(long seconds) throws Exception;
    }

    /** Closes a node and waits up to the given seconds; false on time-out. */
    interface Closer {
        boolean close(long seconds) throws Exception;
    }

    /** Starts a node. */
    interface Starter {
        void start() throws Exception;
    }

    /** The handle of a node started by {@code start} and closed by {@code close}. */
    static NodeHandle handle(Starter start, Closer close) {
        return new NodeHandle() {
            @Override
            public void start() throws Exception {
                start.start();
            }

            @Override
            public boolean close(long seconds) throws Exception {
                return close.close(seconds);
            }
        };
    }

    /**
     * Hands each of {@code settings} to the engine's settings builder: a List value (its items
     * as Strings) to {@code putList}, any other value as a String to {@code put}, in map order.
     */
    static void putSettings(Map<String, Object> settings, BiConsumer<String, String> put, BiConsumer<String, List<String>> putList) {
        for (Map.Entry<String, Object> e : settings.entrySet()) {
            if (e.getValue() instanceof List<?> l) {
                putList.accept(e.getKey(), l.stream().map(String::valueOf).toList());
            } else {
                put.accept(e.getKey(), String.valueOf(e.getValue()));
            }
        }
    }

    /** Makes the per-engine launcher; IOException when its data dir cannot be created. */
    interface Factory {
        ClasspathLauncher create(LauncherConfig cfg) throws IOException;
    }

    /**
     * The entry point of a per-engine launcher: parses {@code args} (LauncherConfig; returns
     * after --help), sets the system property {@code nettyProcessorsProperty} to false unless
     * given (Netty's available-processors can only be set once per JVM; several nodes would
     * clash), makes the launcher with {@code factory} (exit 1 when its data dir cannot be
     * created) and runs it, printing "{@code readyWord} READY url,..." when green.
     */
    static void launch(String[] args, String nettyProcessorsProperty, Factory factory, String readyWord) {
        LauncherConfig cfg = parseArgs(args);
        if (cfg == null) {
            return;
        }
        if (System.getProperty(nettyProcessorsProperty) == null) {
            System.setProperty(nettyProcessorsProperty, "false");
        }
        final ClasspathLauncher launcher;
        try {
            launcher = factory.create(cfg);
        } catch (IOException e) {
            ERR.println("devcluster: cannot create data dir: " + e);
            System.exit(1);
            return;
        }
        launcher.run(readyWord);
    }

    private final List<NodeHandle> nodes = new ArrayList<>();

    ClasspathLauncher(LauncherConfig cfg, String tempPrefix) throws IOException {
        super(cfg, tempPrefix);
    }

    /**
     * Builds (does not start) node {@code name} from {@code settings} (values: String or
     * List of String), its home {@code home} already holding config/, modules/, plugins/, logs/.
     */
    abstract NodeHandle newNode(String name, Map<String, Object> settings, Path home) throws Exception;

    /** The settings of node i, in the order they are put. */
    Map<String, Object> nodeSettings(int i) {
        int n = cfg.nodes;
        Path home = dataDir.resolve("node-" + i);
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("cluster.name", cfg.clusterName);
        s.put("node.name", "node-" + i);
        s.put("node.roles", List.of("master", "data", "ingest"));
        s.put("path.home", home.toString());
        s.put("path.data", home.resolve("data").toString());
        s.put("path.logs", home.resolve("logs").toString());
        s.put("network.host", "127.0.0.1");
        s.put("http.port", String.valueOf(cfg.httpPort + i));
        s.put("transport.port", String.valueOf(cfg.transportPort + i));
        s.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        s.put("indices.breaker.total.use_real_memory", "false");
        s.put("indices.memory.index_buffer_size", (n <= 2 ? 10 : Math.max(1, 10 / n)) + "%");
        if (n == 1) {
            s.put("discovery.type", "single-node");
        } else {
            List<String> seeds = new ArrayList<>();
            for (int j = 0; j < n; j++) {
                seeds.add("127.0.0.1:" + (cfg.transportPort + j));
            }
            s.put("discovery.seed_hosts", seeds);
            s.put("cluster.initial_master_nodes", List.of("node-0"));
        }
        s.putAll(cfg.extraSettings);
        return s;
    }

    @Override
    void startCluster(long deadline) throws Exception {
        for (int i = 0; i < cfg.nodes; i++) {
            checkCanStart(i, deadline);
            final String name = "node-" + i;
            Path home = dataDir.resolve(name);
            for (String d : new String[] {"config", "modules", "plugins", "logs"}) {
                Files.createDirectories(home.resolve(d));
            }
            NodeHandle node;
            synchronized (lock) {
                if (closing.get()) {
                    throw new StartupException("stopped during start-up");
                }
                node = newNode(name, nodeSettings(i), home);
                nodes.add(node);
            }
            try {
                node.start();
            } catch (Exception e) {
                throw new StartupException("node-" + i + " (http " + (cfg.httpPort + i) + ", transport " + (cfg.transportPort + i)
                    + ") failed to start: " + describe(e), e);
            }
        }
    }

    @Override
    String awaitGreen(long deadline) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String last = "no answer";
        URI uri = URI.create("http://127.0.0.1:" + cfg.httpPort + "/_cluster/health?wait_for_status=green&wait_for_nodes=" + cfg.nodes
            + "&wait_for_no_relocating_shards=true&wait_for_events=languid&timeout=5s");
        while (System.nanoTime() < deadline && !closing.get()) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
                last = "HTTP " + r.statusCode() + " " + r.body();
                if (r.statusCode() == 200 && r.body().contains("\"timed_out\":false") && r.body().contains("\"status\":\"green\"")) {
                    return null;
                }
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(500);
        }
        return "cluster not GREEN with " + cfg.nodes + " node(s) within --wait-timeout " + cfg.waitTimeoutSec + " s (last answer: "
            + last + ")";
    }

    @Override
    void closeNodes() {
        List<NodeHandle> toClose;
        synchronized (lock) {
            toClose = new ArrayList<>(nodes);
        }
        excludeFromVoting(toClose.size());
        Collections.reverse(toClose);
        for (NodeHandle node : toClose) {
            try {
                if (!node.close(30)) {
                    ERR.println("devcluster: a node did not close within 30 s");
                }
            } catch (Throwable t) {
                ERR.println("devcluster: error closing node: " + t);
            }
        }
    }
}
