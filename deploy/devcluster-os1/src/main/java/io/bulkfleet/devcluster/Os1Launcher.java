// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.index.mapper.MapperExtrasPlugin;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * The OpenSearch 1.3 dev cluster: N nodes in one JVM from Maven Central's server jar
 * ({@code org.opensearch:opensearch:1.3.20}) with the netty4 transport
 * ({@code transport-netty4-client}) and mapper-extras ({@code mapper-extras-client}) as
 * class-path plugins (OpenSearch 1.x is Elasticsearch 7.10's code line: roles master, data,
 * ingest; {@code cluster.initial_master_nodes}). OpenSearch 1.3's analysis-common and painless
 * are not on Maven Central at 1.3.20. Options as the other launchers (LauncherConfig).
 */
public final class Os1Launcher extends ClasspathLauncher {

    /** The class-path plugins every node loads. */
    static final List<Class<? extends Plugin>> PLUGINS = List.of(Netty4Plugin.class, MapperExtrasPlugin.class);

    private Os1Launcher(LauncherConfig cfg) throws java.io.IOException {
        super(cfg, "bulkfleet-devcluster-os1-");
    }

    /** A node with the class-path plugins; no node/cluster id log listener (no log4j context). */
    static final class EmbeddedNode extends Node {
        EmbeddedNode(Environment env, Collection<Class<? extends Plugin>> plugins) {
            super(env, plugins, true);
        }

        @Override
        protected void configureNodeAndClusterIdStateListener(ClusterService clusterService) {
            // intentionally empty: the listener sets log4j's node id fields, which we do not log
        }
    }

    @Override
    NodeHandle newNode(String name, Map<String, Object> settings, Path home) {
        Settings.Builder b = Settings.builder();
        putSettings(settings, b::put, b::putList);
        Environment env = InternalSettingsPreparer.prepareEnvironment(b.build(), Collections.emptyMap(), null, () -> name);
        Node node = new EmbeddedNode(env, PLUGINS);
        return handle(node::start, seconds -> {
            node.close();
            return node.awaitClose(seconds, TimeUnit.SECONDS);
        });
    }

    /** Entry point: the LauncherConfig options; prints "OPENSEARCH READY url,..." when green. */
    public static void main(String[] args) {
        launch(args, "opensearch.set.netty.runtime.available.processors", Os1Launcher::new, "OPENSEARCH");
    }
}
