// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
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
 * until SIGTERM/SIGINT (or --max-lifetime).
 *
 * <p>Exit codes: 0 normal stop (143 on SIGTERM by JVM convention), 1 start-up failure,
 * 2 cluster not GREEN within --wait-timeout, 64 bad command line.
 */
public final class Launcher {

    private static final PrintStream OUT = System.out;
    private static final PrintStream ERR = System.err;

    /** The classpath plugins every node loads; their class names differ by major (Compat). */
    private static final List<Class<? extends Plugin>> PLUGINS = Compat.PLUGINS;

    private final LauncherConfig cfg;
    private final Path dataDir;
    private final boolean dataDirIsTemp;
    private final boolean dataDirCreated;
    private final List<Node> nodes = new ArrayList<>();
    private final Object lock = new Object();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);

    private Launcher(LauncherConfig cfg) throws IOException {
        this.cfg = cfg;
        if (cfg.dataDir == null) {
            this.dataDir = Files.createTempDirectory("bulkfleet-devcluster-");
            this.dataDirIsTemp = true;
            this.dataDirCreated = true;
        } else {
            this.dataDir = cfg.dataDir;
            this.dataDirIsTemp = false;
            this.dataDirCreated = !Files.exists(dataDir);
            Files.createDirectories(dataDir);
        }
    }

    public static void main(String[] args) {
        final LauncherConfig cfg;
        try {
            cfg = LauncherConfig.parse(args);
        } catch (IllegalArgumentException e) {
            ERR.println("devcluster: " + e.getMessage());
            ERR.println(LauncherConfig.USAGE);
            System.exit(64);
            return;
        }
        if (cfg.help) {
            OUT.println(LauncherConfig.USAGE);
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
        Runtime.getRuntime().addShutdownHook(new Thread(launcher::shutdown, "devcluster-shutdown"));
        launcher.startLifetimeGuard();

        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(cfg.waitTimeoutSec);
        int code = 0;
        String failure = null;
        try {
            launcher.checkPortsFree();
            launcher.startCluster(deadline);
            failure = launcher.awaitGreen(deadline);
            if (failure != null) {
                code = 2;
            }
        } catch (Throwable t) {
            code = 1;
            failure = "start-up failed: " + describe(t);
            if (!(t instanceof StartupException)) {
                t.printStackTrace(ERR);
            }
        }
        if (failure != null) {
            if (launcher.closing.get()) {
                // we are being stopped (signal / lifetime guard): not a start-up error
                launcher.awaitStopped();
                return;
            }
            ERR.println("devcluster: ERROR: " + failure);
            launcher.shutdown();
            System.exit(code);
            return;
        }
        try {
            launcher.writeReadyFile();
        } catch (IOException e) {
            ERR.println("devcluster: ERROR: cannot write ready file " + cfg.readyFile + ": " + e);
            launcher.shutdown();
            System.exit(1);
            return;
        }
        OUT.println("OPENSEARCH READY " + String.join(",", launcher.urls()));
        OUT.flush();
        // OpenSearch threads are daemons: keep the JVM alive until shutdown.
        launcher.awaitStopped();
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder(String.valueOf(t.getMessage() != null ? t.getMessage() : t.toString()));
        Throwable c = t.getCause();
        int depth = 0;
        while (c != null && c != t && depth++ < 5) {
            sb.append(" <- ").append(c.getMessage() != null ? c.getClass().getSimpleName() + ": " + c.getMessage() : c.toString());
            t = c;
            c = c.getCause();
        }
        return sb.toString();
    }

    private void awaitStopped() {
        while (true) {
            try {
                stopped.await();
                return;
            } catch (InterruptedException e) {
                // keep waiting; only shutdown() releases us
            }
        }
    }

    private void startLifetimeGuard() {
        if (cfg.maxLifetimeSec <= 0) {
            return;
        }
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(cfg.maxLifetimeSec));
            } catch (InterruptedException e) {
                return;
            }
            ERR.println("devcluster: --max-lifetime of " + cfg.maxLifetimeSec + " s reached, stopping");
            System.exit(0);
        }, "devcluster-lifetime-guard");
        t.setDaemon(true);
        t.start();
    }

    List<String> urls() {
        return IntStream.range(0, cfg.nodes)
            .mapToObj(i -> "http://127.0.0.1:" + (cfg.httpPort + i))
            .collect(Collectors.toList());
    }

    /** Fail fast, with a clear message, when one of our ports is already taken. */
    private void checkPortsFree() {
        InetAddress lo = InetAddress.getLoopbackAddress();
        for (int i = 0; i < cfg.nodes; i++) {
            for (int[] p : new int[][] {{cfg.httpPort + i, 0}, {cfg.transportPort + i, 1}}) {
                try (ServerSocket s = new ServerSocket()) {
                    s.setReuseAddress(true);
                    s.bind(new InetSocketAddress(lo, p[0]));
                } catch (IOException e) {
                    throw new StartupException((p[1] == 0 ? "HTTP" : "transport") + " port " + p[0]
                        + " on 127.0.0.1 is already in use (node-" + i + ")");
                }
            }
        }
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

    /** Builds and starts the nodes one after the other; node 0 bootstraps the cluster. */
    private void startCluster(long deadline) throws Exception {
        Collection<Class<? extends Plugin>> plugins = PLUGINS;
        for (int i = 0; i < cfg.nodes; i++) {
            if (closing.get()) {
                throw new StartupException("stopped during start-up");
            }
            if (System.nanoTime() > deadline) {
                throw new StartupException("--wait-timeout of " + cfg.waitTimeoutSec + " s exceeded while starting node-" + i);
            }
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

    /** @return null when GREEN with all nodes, else a failure description */
    private String awaitGreen(long deadline) {
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

    private void writeReadyFile() throws IOException {
        if (cfg.readyFile == null) {
            return;
        }
        Path parent = cfg.readyFile.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Path tmp = cfg.readyFile.resolveSibling(cfg.readyFile.getFileName() + ".tmp");
        Files.write(tmp, (String.join("\n", urls()) + "\n").getBytes(StandardCharsets.UTF_8));
        try {
            Files.move(tmp, cfg.readyFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, cfg.readyFile, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Idempotent: closes nodes (node 0 last), removes ready file and data, releases main. */
    void shutdown() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        List<Node> toClose;
        synchronized (lock) {
            toClose = new ArrayList<>(nodes);
        }
        // Nodes going away make the survivors log connection WARNs: expected while stopping.
        if (LogManager.getRootLogger().getLevel() == Level.WARN) {
            Configurator.setRootLevel(Level.ERROR);
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
        if (cfg.readyFile != null) {
            try {
                Files.deleteIfExists(cfg.readyFile);
            } catch (IOException ignored) {
                // best effort
            }
        }
        if (!cfg.keepData) {
            if (dataDirIsTemp || dataDirCreated) {
                deleteRecursively(dataDir);
            } else {
                // a pre-existing --data-dir: only remove what we created in it
                for (int i = 0; i < cfg.nodes; i++) {
                    deleteRecursively(dataDir.resolve("node-" + i));
                }
            }
        }
        ERR.println("devcluster: stopped");
        ERR.flush();
        LogManager.shutdown();
        stopped.countDown();
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

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            ERR.println("devcluster: could not fully delete " + root + ": " + e);
        }
    }

    /** A start-up failure whose message is self-explanatory (no stack trace needed). */
    static final class StartupException extends RuntimeException {
        StartupException(String msg) {
            super(msg);
        }

        StartupException(String msg, Throwable cause) {
            super(msg, cause);
        }
    }
}
