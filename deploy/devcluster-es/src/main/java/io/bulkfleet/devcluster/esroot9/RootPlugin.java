// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esroot9;

import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * {@code GET /} and {@code HEAD /} for the Elasticsearch dev cluster.
 *
 * <p>Elasticsearch serves {@code GET /} from its rest-root module (MainRestPlugin), which is not
 * published on Maven Central; this module answers the same fields from the node's own
 * {@link Build} and cluster state: name, cluster_name, cluster_uuid, version.{number,
 * build_flavor, build_type, build_hash, build_date, build_snapshot, lucene_version,
 * minimum_wire_compatibility_version, minimum_index_compatibility_version}, tagline. It is
 * loaded from the node home's modules/ directory like any Elasticsearch module. The 9.x form
 * (Elasticsearch 9.5: getRestHandlers takes RestHandlersServices); esroot is the 8.x one.
 */
public final class RootPlugin extends Plugin implements ActionPlugin {

    private volatile ClusterService clusterService;

    @Override
    public Collection<?> createComponents(PluginServices services) {
        clusterService = services.clusterService();
        return List.of();
    }

    @Override
    public Collection<RestHandler> getRestHandlers(RestHandlersServices services, Supplier<DiscoveryNodes> nodes,
        Predicate<NodeFeature> features) {
        return List.of(new Handler());
    }

    private final class Handler extends BaseRestHandler {
        @Override
        public String getName() {
            return "bulkfleet_devcluster_main_action";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
            return channel -> {
                ClusterState state = clusterService.state();
                Build b = Build.current();
                XContentBuilder x = channel.newBuilder();
                x.startObject();
                x.field("name", clusterService.getNodeName());
                x.field("cluster_name", state.getClusterName().value());
                x.field("cluster_uuid", state.metadata().clusterUUID());
                x.startObject("version");
                x.field("number", b.qualifiedVersion());
                x.field("build_flavor", b.flavor());
                x.field("build_type", b.type().displayName());
                x.field("build_hash", b.hash());
                x.field("build_date", b.date());
                x.field("build_snapshot", b.isSnapshot());
                x.field("lucene_version", org.apache.lucene.util.Version.LATEST.toString());
                x.field("minimum_wire_compatibility_version", b.minWireCompatVersion());
                x.field("minimum_index_compatibility_version", b.minIndexCompatVersion());
                x.endObject();
                x.field("tagline", "You Know, for Search");
                x.endObject();
                channel.sendResponse(new RestResponse(RestStatus.OK, x));
            };
        }
    }
}
