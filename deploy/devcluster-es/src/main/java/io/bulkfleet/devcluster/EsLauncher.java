// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;

/**
 * Starts N real Elasticsearch nodes (8.x or 9.x, whichever server jar is on the classpath) in
 * this JVM, all bound to 127.0.0.1, and keeps them running until SIGTERM/SIGINT (or
 * --max-lifetime). Same command line, ready file and exit codes as the OpenSearch launcher
 * (../devcluster-common): 0 normal stop, 1 start-up failure, 2 not GREEN within --wait-timeout,
 * 64 bad command line.
 *
 * <p>Each node gets a home {@code <data-dir>/node-<i>/} whose {@code modules/} holds the
 * modules laid out by the Maven build in {@code target/modules/} (transport-netty4 from Maven
 * Central with its Netty jars, and bulkfleet-root for {@code GET /}), each with a
 * plugin-descriptor.properties, and Elasticsearch's PluginsService loads them as it loads the
 * distribution's modules. The node is built with {@code new Node(...)} directly, not through
 * org.elasticsearch.bootstrap.Elasticsearch: no SecurityManager (8.x) or entitlement agent (9.x)
 * is installed, no native access is initialised and no bootstrap checks run (a loopback-only dev
 * node would skip them anyway). Security (x-pack) is not there: plain HTTP, no users.
 */
public final class EsLauncher {

    private static final PrintStream OUT = System.out;
    private static final PrintStream ERR = System.err;

    private final LauncherConfig cfg;
    private final Path dataDir;
    private final boolean dataDirIsTemp;
    private final boolean dataDirCreated;
    private final Path modulesSource;
    private final List<Node> nodes = new ArrayList<>();
    private final Object lock = new Object();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);

    private EsLauncher(LauncherConfig cfg, Path modulesSource) throws IOException {
        this.cfg = cfg;
        this.modulesSource = modulesSource;
        if (cfg.dataDir == null) {
            this.dataDir = Files.createTempDirectory("bulkfleet-devcluster-es-");
            this.dataDirIsTemp = true;
            this.dataDirCreated = true;
        } else {
            this.dataDir = cfg.dataDir;
            this.dataDirIsTemp = false;
            this.dataDirCreated = !Files.exists(dataDir);
            Files.createDirectories(dataDir);
        }
    }

    /** The modules directory next to the launcher jar (target/modules), or -Ddevcluster.modules. */
    private static Path findModules() {
        String p = System.getProperty("devcluster.modules");
        if (p != null) {
            return Paths.get(p);
        }
        try {
            Path jar = Paths.get(EsLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().resolve("modules");
        } catch (Exception e) {
            return Paths.get("modules");
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
        if (System.getProperty("es.set.netty.runtime.available.processors") == null) {
            System.setProperty("es.set.netty.runtime.available.processors", "false");
        }
        // Elasticsearch's own logging API (org.elasticsearch.logging) needs its log4j provider;
        // the log4j configuration itself is our log4j2.properties (console, stderr)
        org.elasticsearch.common.logging.LogConfigurator.configureESLogging();
        Path modules = findModules();
        if (!Files.isDirectory(modules.resolve("transport-netty4"))) {
            ERR.println("devcluster: ERROR: " + modules.resolve("transport-netty4")
                + " is missing: build the launcher with scripts/devcluster.sh build (mvn package lays out target/modules)");
            System.exit(1);
            return;
        }
        final EsLauncher launcher;
        try {
            launcher = new EsLauncher(cfg, modules);
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
        OUT.println("ELASTICSEARCH READY " + String.join(",", launcher.urls()));
        OUT.flush();
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
        return IntStream.range(0, cfg.nodes).mapToObj(i -> "http://127.0.0.1:" + (cfg.httpPort + i)).collect(Collectors.toList());
    }

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
            .putList("node.roles", "master", "data", "ingest")
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
            b.putList("cluster.initial_master_nodes", "node-0");
        }
        for (Map.Entry<String, String> e : cfg.extraSettings.entrySet()) {
            b.put(e.getKey(), e.getValue());
        }
        return b.build();
    }

    /** Copies target/modules/* into the node home's modules/ (symbolic links to each module dir). */
    private void layOutModules(Path home) throws IOException {
        Path dst = home.resolve("modules");
        Files.createDirectories(dst);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(modulesSource)) {
            for (Path m : ds) {
                if (Files.isDirectory(m)) {
                    Path link = dst.resolve(m.getFileName().toString());
                    if (!Files.exists(link)) {
                        Files.createSymbolicLink(link, m.toAbsolutePath());
                    }
                }
            }
        }
        Files.createDirectories(home.resolve("plugins"));
        Files.createDirectories(home.resolve("config"));
        Files.createDirectories(home.resolve("logs"));
    }

    /**
     * A node for this Elasticsearch major: 8.x has {@code Node(Environment)}; 9.x takes
     * {@code Node(Environment, PluginsLoader)}, the loader built with
     * {@code PluginsLoader.createPluginsLoader(modules bundles, plugins bundles, native access map)}.
     */
    private static Node newNode(Environment env) throws Exception {
        try {
            Constructor<Node> c = Node.class.getConstructor(Environment.class);
            return c.newInstance(env);
        } catch (NoSuchMethodException e8) {
            Class<?> loaderClass = Class.forName("org.elasticsearch.plugins.PluginsLoader");
            Method mods = loaderClass.getMethod("loadModulesBundles", Path.class);
            Method plugs = loaderClass.getMethod("loadPluginsBundles", Path.class);
            Method create = loaderClass.getMethod("createPluginsLoader", Set.class, Set.class, Map.class);
            Method modulesDir = Environment.class.getMethod("modulesDir");
            Method pluginsDir = Environment.class.getMethod("pluginsDir");
            Object loader = create.invoke(null, mods.invoke(null, modulesDir.invoke(env)), plugs.invoke(null, pluginsDir.invoke(env)),
                Collections.emptyMap());
            Constructor<Node> c = Node.class.getConstructor(Environment.class, loaderClass);
            return c.newInstance(env, loader);
        }
    }

    private void startCluster(long deadline) throws Exception {
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
            layOutModules(home);
            Environment env = InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), null, () -> name);
            Node node;
            synchronized (lock) {
                if (closing.get()) {
                    throw new StartupException("stopped during start-up");
                }
                try {
                    node = newNode(env);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    e.getCause().printStackTrace(ERR);
                    throw new StartupException("node-" + i + " could not be built: " + describe(e.getCause()), e.getCause());
                }
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

    /** Polls node 0's _cluster/health over HTTP; @return null when GREEN with all nodes. */
    private String awaitGreen(long deadline) throws InterruptedException {
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
                for (int i = 0; i < cfg.nodes; i++) {
                    deleteRecursively(dataDir.resolve("node-" + i));
                }
            }
        }
        ERR.println("devcluster: stopped");
        ERR.flush();
        org.apache.logging.log4j.LogManager.shutdown();
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
}
