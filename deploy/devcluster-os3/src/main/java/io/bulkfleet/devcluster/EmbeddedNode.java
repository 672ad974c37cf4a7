// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.util.Collection;
import java.util.Collections;
import java.util.stream.Collectors;

import org.opensearch.Version;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.env.Environment;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginInfo;

/**
 * A plain OpenSearch 3.x {@link Node} that accepts classpath plugins.
 *
 * <p>OpenSearch 3.x takes plugin descriptors ({@link PluginInfo}) instead of classes; each class
 * is described as a classpath plugin (the 8-argument constructor of 3.8: name, description,
 * version, OpenSearch version, Java version, class name, extended plugins, native controller).
 * As in the 2.x launcher, {@link #configureNodeAndClusterIdStateListener(ClusterService)} is a
 * no-op: the stock listener sets a JVM-wide SetOnce, so every node after the first would log
 * "failed to notify ClusterStateListener" when several nodes share one JVM.
 */
final class EmbeddedNode extends Node {

    EmbeddedNode(Environment environment, Collection<Class<? extends Plugin>> classpathPlugins) {
        super(environment, describe(classpathPlugins), true);
    }

    private static Collection<PluginInfo> describe(Collection<Class<? extends Plugin>> classes) {
        return classes.stream()
            .map(c -> new PluginInfo(c.getName(), "classpath plugin", "NA", Version.CURRENT,
                                     Integer.toString(Runtime.version().feature()), c.getName(),
                                     Collections.emptyList(), false))
            .collect(Collectors.toList());
    }

    @Override
    protected void configureNodeAndClusterIdStateListener(ClusterService clusterService) {
        // intentionally empty: see class comment
    }
}
