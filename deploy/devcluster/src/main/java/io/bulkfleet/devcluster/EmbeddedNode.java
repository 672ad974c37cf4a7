// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.util.Collection;

import org.opensearch.cluster.service.ClusterService;
import org.opensearch.env.Environment;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

/**
 * A plain OpenSearch {@link Node} that accepts classpath plugins.
 *
 * <p>The only behavioural change is a no-op
 * {@link #configureNodeAndClusterIdStateListener(ClusterService)}: the stock listener sets a
 * JVM-wide SetOnce (used by a log4j pattern converter), so every node after the first would log
 * "failed to notify ClusterStateListener" when several nodes share one JVM.
 */
final class EmbeddedNode extends Node {

    EmbeddedNode(Environment environment, Collection<Class<? extends Plugin>> classpathPlugins) {
        super(environment, classpathPlugins, true);
    }

    @Override
    protected void configureNodeAndClusterIdStateListener(ClusterService clusterService) {
        // intentionally empty: see class comment
    }
}
