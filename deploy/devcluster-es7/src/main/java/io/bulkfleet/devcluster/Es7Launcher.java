// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.mapper.MapperExtrasPlugin;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.transport.Netty4Plugin;

/**
 * The Elasticsearch 7.17 dev cluster: N nodes in one JVM from Maven Central's server jar
 * ({@code org.elasticsearch:elasticsearch:7.17.29}) with the netty4 transport
 * ({@code transport-netty4-client}) and mapper-extras ({@code mapper-extras-client}) as
 * class-path plugins, the 7.x way (no module layer, no SecurityManager: the node is built
 * without the bootstrap). Elasticsearch 7's analysis-common, painless and x-pack are not on
 * Maven Central. Options as the other launchers (LauncherConfig).
 */
public final class Es7Launcher extends ClasspathLauncher {

    /** The class-path plugins every node loads. */
    static final List<Class<? extends Plugin>> PLUGINS = List.of(Netty4Plugin.class, MapperExtrasPlugin.class);

    private Es7Launcher(LauncherConfig cfg) throws java.io.IOException {
        super(cfg, "bulkfleet-devcluster-es7-");
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

    /** Entry point: the LauncherConfig options; prints "ELASTICSEARCH READY url,..." when green. */
    public static void main(String[] args) {
        launch(args, "es.set.netty.runtime.available.processors", Es7Launcher::new, "ELASTICSEARCH");
    }
}
