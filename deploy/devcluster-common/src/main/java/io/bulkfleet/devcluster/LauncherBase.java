// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * The lifecycle both dev cluster launchers share, engine-neutral (no OpenSearch or
 * Elasticsearch class here, only log4j, which both ship): the data directory, the main flow
 * (ports checked, nodes started, GREEN awaited, ready file written, "ENGINE READY url,..."
 * printed, then kept alive until SIGTERM/SIGINT or --max-lifetime), the lifetime guard, the
 * ready file and the idempotent shutdown that removes what was created. {@code Launcher}
 * (OpenSearch 2.x/3.x) and {@code EsLauncher} (Elasticsearch 8.x/9.x) extend it with how their
 * engine builds, starts, health-checks and closes nodes.
 *
 * <p>Exit codes: 0 normal stop (143 on SIGTERM by JVM convention), 1 start-up failure,
 * 2 cluster not GREEN within --wait-timeout, 64 bad command line.
 */
abstract class LauncherBase {

    static final PrintStream OUT = System.out;
    static final PrintStream ERR = System.err;

    final LauncherConfig cfg;
    final Path dataDir;
    private final boolean dataDirIsTemp;
    private final boolean dataDirCreated;
    /** Guards the subclass's list of nodes against shutdown() racing startCluster(). */
    final Object lock = new Object();
    final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** @param tempPrefix the prefix of the temporary data directory when --data-dir is not given */
    LauncherBase(LauncherConfig cfg, String tempPrefix) throws IOException {
        this.cfg = cfg;
        if (cfg.dataDir == null) {
            this.dataDir = Files.createTempDirectory(tempPrefix);
            this.dataDirIsTemp = true;
            this.dataDirCreated = true;
        } else {
            this.dataDir = cfg.dataDir;
            this.dataDirIsTemp = false;
            this.dataDirCreated = !Files.exists(dataDir);
            Files.createDirectories(dataDir);
        }
    }

    /** Builds and starts cfg.nodes nodes one after the other (node 0 bootstraps the cluster). */
    abstract void startCluster(long deadlineNanos) throws Exception;

    /** @return null when GREEN with all nodes by deadlineNanos, else a failure description */
    abstract String awaitGreen(long deadlineNanos) throws Exception;

    /** Closes every node started so far (node 0 last), best effort; called once, by shutdown(). */
    abstract void closeNodes();

    /**
     * The command line parsed, or null after printing --help (exit 0) or a usage error (exit 64:
     * this calls System.exit).
     */
    static LauncherConfig parseArgs(String[] args) {
        final LauncherConfig cfg;
        try {
            cfg = LauncherConfig.parse(args);
        } catch (IllegalArgumentException e) {
            ERR.println("devcluster: " + e.getMessage());
            ERR.println(LauncherConfig.USAGE);
            System.exit(64);
            return null;
        }
        if (cfg.help) {
            OUT.println(LauncherConfig.USAGE);
            return null;
        }
        return cfg;
    }

    /**
     * The main flow after construction; returns when the cluster has stopped, or exits the JVM
     * with 1 or 2 on a start-up failure. readyWord names the engine in the READY line.
     */
    final void run(String readyWord) {
        Runtime.getRuntime().addShutdownHook(new Thread(this::shutdown, "devcluster-shutdown"));
        startLifetimeGuard();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(cfg.waitTimeoutSec);
        int code = 0;
        String failure = null;
        try {
            checkPortsFree();
            startCluster(deadline);
            failure = awaitGreen(deadline);
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
            if (closing.get()) {
                // we are being stopped (signal / lifetime guard): not a start-up error
                awaitStopped();
                return;
            }
            ERR.println("devcluster: ERROR: " + failure);
            shutdown();
            System.exit(code);
            return;
        }
        try {
            writeReadyFile();
        } catch (IOException e) {
            ERR.println("devcluster: ERROR: cannot write ready file " + cfg.readyFile + ": " + e);
            shutdown();
            System.exit(1);
            return;
        }
        OUT.println(readyWord + " READY " + String.join(",", urls()));
        OUT.flush();
        // the engines' threads are daemons: keep the JVM alive until shutdown
        awaitStopped();
    }

    /** The message of t and of up to 5 of its causes, on one line. */
    static String describe(Throwable t) {
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

    /** One http://127.0.0.1:PORT per node. */
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

    /** The start-up checks before node i is built: not stopping, deadline not passed. */
    final void checkCanStart(int i, long deadlineNanos) {
        if (closing.get()) {
            throw new StartupException("stopped during start-up");
        }
        if (System.nanoTime() > deadlineNanos) {
            throw new StartupException("--wait-timeout of " + cfg.waitTimeoutSec + " s exceeded while starting node-" + i);
        }
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

    /** Idempotent: closes nodes (node 0 last), removes ready file and data, releases run(). */
    final void shutdown() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        // Nodes going away make the survivors log connection WARNs: expected while stopping.
        if (LogManager.getRootLogger().getLevel() == Level.WARN) {
            Configurator.setRootLevel(Level.ERROR);
        }
        closeNodes();
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

    /**
     * Before closing nodes 1..N-1 one after the other, drop them from the voting configuration
     * (POST _cluster/voting_config_exclusions on node 0) so node 0 keeps a quorum; otherwise it
     * logs "non-failed nodes do not form a quorum" errors while the others go away. Best effort,
     * bounded in time (the OpenSearch 2/3 launcher does the same through its client).
     */
    final void excludeFromVoting(int started) {
        if (started < 2) {
            return;
        }
        String names = IntStream.range(1, started).mapToObj(i -> "node-" + i).collect(Collectors.joining(","));
        URI uri = URI.create("http://127.0.0.1:" + cfg.httpPort + "/_cluster/voting_config_exclusions?node_names=" + names
            + "&timeout=10s");
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(15)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding());
        } catch (Exception e) {
            // not fatal: the nodes are closed anyway, only the log gets noisier
        }
    }
}
