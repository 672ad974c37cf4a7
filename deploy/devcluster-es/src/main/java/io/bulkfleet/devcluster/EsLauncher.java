// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;

/**
 * Starts N real Elasticsearch nodes (8.x or 9.x, whichever server jar is on the classpath) in
 * this JVM, all bound to 127.0.0.1, and keeps them running until SIGTERM/SIGINT (or
 * --max-lifetime). The lifecycle (command line, data directory, main flow, ready file,
 * shutdown, exit codes: 0 normal stop, 1 start-up failure, 2 not GREEN within --wait-timeout, 64
 * bad command line) is {@link LauncherBase}'s in ../devcluster-common, shared with the
 * OpenSearch launcher; here is how Elasticsearch nodes are laid out, built, health-checked and
 * closed.
 *
 * <p>Each node gets a home {@code <data-dir>/node-<i>/} whose {@code modules/} holds the
 * modules laid out by the Maven build in {@code target/modules/} (transport-netty4 from Maven
 * Central with its Netty jars, bulkfleet-root for {@code GET /} and bulkfleet-data-streams for
 * {@code /_data_stream}), each with a
 * plugin-descriptor.properties, and Elasticsearch's PluginsService loads them as it loads the
 * distribution's modules. The node is built with {@code new Node(...)} directly, not through
 * org.elasticsearch.bootstrap.Elasticsearch: no SecurityManager (8.x) or entitlement agent (9.x)
 * is installed, no native access is initialised and no bootstrap checks run (a loopback-only dev
 * node would skip them anyway). Security (x-pack) is not there: plain HTTP, no users.
 */
public final class EsLauncher extends LauncherBase {

    private final Path modulesSource;
    private final List<Node> nodes = new ArrayList<>();

    private EsLauncher(LauncherConfig cfg, Path modulesSource) throws IOException {
        super(cfg, "bulkfleet-devcluster-es-");
        this.modulesSource = modulesSource;
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
        LauncherConfig cfg = parseArgs(args);
        if (cfg == null) {
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
        launcher.run("ELASTICSEARCH");
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
            Method create = loaderClass.getMethod("createPluginsLoader", Set.class, Set.class, Map.class);
            Method modulesDir = Environment.class.getMethod("modulesDir");
            Method pluginsDir = Environment.class.getMethod("pluginsDir");
            Object modBundles, plugBundles;
            try {
                Method mods = loaderClass.getMethod("loadModulesBundles", Path.class);
                Method plugs = loaderClass.getMethod("loadPluginsBundles", Path.class);
                modBundles = mods.invoke(null, modulesDir.invoke(env));
                plugBundles = plugs.invoke(null, pluginsDir.invoke(env));
            } catch (NoSuchMethodException e93) {
                // 9.5: (dir, serverless): false keeps the modules of a stateful node
                Method mods = loaderClass.getMethod("loadModulesBundles", Path.class, boolean.class);
                Method plugs = loaderClass.getMethod("loadPluginsBundles", Path.class, boolean.class);
                modBundles = mods.invoke(null, modulesDir.invoke(env), false);
                plugBundles = plugs.invoke(null, pluginsDir.invoke(env), false);
            }
            Object loader = create.invoke(null, modBundles, plugBundles, Collections.emptyMap());
            Constructor<Node> c = Node.class.getConstructor(Environment.class, loaderClass);
            return c.newInstance(env, loader);
        }
    }

    @Override
    void startCluster(long deadline) throws Exception {
        for (int i = 0; i < cfg.nodes; i++) {
            checkCanStart(i, deadline);
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
        List<Node> toClose;
        synchronized (lock) {
            toClose = new ArrayList<>(nodes);
        }
        excludeFromVoting(toClose.size());
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
}
