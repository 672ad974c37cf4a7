// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.opensearch.action.admin.cluster.configuration.AddVotingConfigExclusionsAction;
import org.opensearch.action.admin.cluster.configuration.AddVotingConfigExclusionsRequest;
import org.opensearch.action.admin.cluster.health.ClusterHealthResponse;
import org.opensearch.common.Priority;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

/**
 * Starts N real OpenSearch nodes in this JVM, all bound to 127.0.0.1, and keeps them running
 * until SIGTERM/SIGINT (or --max-lifetime). The lifecycle (data directory, main flow, ready file,
 * shutdown, exit codes) is {@link LauncherBase}'s, shared with the Elasticsearch launcher; here
 * is how OpenSearch nodes are built (Compat, EmbeddedNode), health-checked and closed.
 */
public final class Launcher extends LauncherBase {

    /** The classpath plugins every node loads; their class names differ by major (Compat). */
    private static final List<Class<? extends Plugin>> PLUGINS = Compat.PLUGINS;

    private final List<Node> nodes = new ArrayList<>();

    private Launcher(LauncherConfig cfg) throws IOException {
        super(cfg, "bulkfleet-devcluster-");
    }

    public static void main(String[] args) {
        LauncherConfig cfg = parseArgs(args);
        if (cfg == null) {
            return;
        }
        // Netty's available-processors can only be set once per JVM; several nodes would clash.
        if (System.getProperty("opensearch.set.netty.runtime.available.processors") == null) {
            System.setProperty("opensearch.set.netty.runtime.available.processors", "false");
        }
        final Launcher launcher;
        try {
            launcher = new Launcher(cfg);
        } catch (IOException e) {
            ERR.println("devcluster: cannot create data dir: " + e);
            System.exit(1);
            return;
        }
        launcher.run("OPENSEARCH");
    }

    Settings nodeSettings(int i) {
        int n = cfg.nodes;
        Path home = dataDir.resolve("node-" + i);
        Settings.Builder b = Settings.builder()
            .put("cluster.name", cfg.clusterName)
            .put("node.name", "node-" + i)
            .putList("node.roles", "cluster_manager", "data", "ingest")
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("path.logs", home.resolve("logs").toString())
            .put("network.host", "127.0.0.1")
            .put("http.port", String.valueOf(cfg.httpPort + i))
            .put("transport.port", String.valueOf(cfg.transportPort + i))
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("indices.breaker.total.use_real_memory", false)
            .put("indices.memory.index_buffer_size", (n <= 2 ? 10 : Math.max(1, 10 / n)) + "%");
        if (n == 1) {
            b.put("discovery.type", "single-node");
        } else {
            List<String> seeds = new ArrayList<>();
            for (int j = 0; j < n; j++) {
                seeds.add("127.0.0.1:" + (cfg.transportPort + j));
            }
            b.putList("discovery.seed_hosts", seeds);
            b.putList("cluster.initial_cluster_manager_nodes", "node-0");
        }
        for (Map.Entry<String, String> e : cfg.extraSettings.entrySet()) {
            b.put(e.getKey(), e.getValue());
        }
        return b.build();
    }

    @Override
    void startCluster(long deadline) throws Exception {
        Collection<Class<? extends Plugin>> plugins = PLUGINS;
        for (int i = 0; i < cfg.nodes; i++) {
            checkCanStart(i, deadline);
            final String name = "node-" + i;
            Settings settings = nodeSettings(i);
            Path home = dataDir.resolve(name);
            Files.createDirectories(home.resolve("config"));
            Environment env = InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), null, () -> name);
            Compat.createNodeDirectories(env);
            Node node;
            synchronized (lock) {
                if (closing.get()) {
                    throw new StartupException("stopped during start-up");
                }
                node = new EmbeddedNode(env, plugins);
                nodes.add(node);
            }
            try {
                node.start();
            } catch (Exception e) {
                throw new StartupException("node-" + i + " (http " + (cfg.httpPort + i) + ", transport "
                    + (cfg.transportPort + i) + ") failed to start: " + describe(e), e);
            }
        }
    }

    @Override
    String awaitGreen(long deadline) {
        Node first;
        synchronized (lock) {
            first = nodes.get(0);
        }
        long remainingMs = Math.max(1000, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        TimeValue t = TimeValue.timeValueMillis(remainingMs);
        ClusterHealthResponse r = first.client().admin().cluster().prepareHealth()
            .setWaitForGreenStatus()
            .setWaitForNodes(String.valueOf(cfg.nodes))
            .setWaitForNoRelocatingShards(true)
            .setWaitForEvents(Priority.LANGUID)
            .setTimeout(t)
            .setClusterManagerNodeTimeout(t)
            .get(TimeValue.timeValueMillis(remainingMs + 5000));
        if (r.isTimedOut()) {
            return "cluster not GREEN with " + cfg.nodes + " node(s) within --wait-timeout " + cfg.waitTimeoutSec
                + " s (status " + r.getStatus() + ", nodes " + r.getNumberOfNodes() + ")";
        }
        return null;
    }

    @Override
    void closeNodes() {
        List<Node> toClose;
        synchronized (lock) {
            toClose = new ArrayList<>(nodes);
        }
        excludeFromVoting(toClose);
        Collections.reverse(toClose);
        for (Node node : toClose) {
            try {
                node.close();
                if (!node.awaitClose(30, TimeUnit.SECONDS)) {
                    ERR.println("devcluster: a node did not close within 30 s");
                }
            } catch (Throwable t) {
                ERR.println("devcluster: error closing node: " + t);
            }
        }
    }

    /**
     * Before closing nodes 1..N-1 one after the other, drop them from the voting configuration so
     * node 0 keeps a quorum; otherwise node 0 logs "non-failed nodes do not form a quorum" errors
     * while the others go away. Best effort, bounded in time.
     */
    private void excludeFromVoting(List<Node> started) {
        if (started.size() < 2) {
            return;
        }
        String[] others = IntStream.range(1, started.size()).mapToObj(i -> "node-" + i).toArray(String[]::new);
        try {
            started.get(0).client()
                .execute(AddVotingConfigExclusionsAction.INSTANCE,
                    new AddVotingConfigExclusionsRequest(new String[0], new String[0], others, TimeValue.timeValueSeconds(10)))
                .get(15, TimeUnit.SECONDS);
        } catch (Throwable t) {
            // not fatal: the nodes are closed anyway, only the log gets noisier
        }
    }
}
