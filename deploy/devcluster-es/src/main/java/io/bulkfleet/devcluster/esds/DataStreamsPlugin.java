// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esds;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.elasticsearch.ResourceNotFoundException;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.datastreams.CreateDataStreamAction;
import org.elasticsearch.action.datastreams.DataStreamsActionUtil;
import org.elasticsearch.action.datastreams.DeleteDataStreamAction;
import org.elasticsearch.action.datastreams.GetDataStreamAction;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.action.support.IndicesOptions;
import org.elasticsearch.action.support.master.AcknowledgedResponse;
import org.elasticsearch.action.support.master.AcknowledgedTransportMasterNodeAction;
import org.elasticsearch.action.support.master.TransportMasterNodeReadAction;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.ClusterStateUpdateTask;
import org.elasticsearch.cluster.block.ClusterBlockException;
import org.elasticsearch.cluster.block.ClusterBlockLevel;
import org.elasticsearch.cluster.health.ClusterStateHealth;
import org.elasticsearch.cluster.metadata.DataStream;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.metadata.Metadata;
import org.elasticsearch.cluster.metadata.MetadataCreateDataStreamService;
import org.elasticsearch.cluster.metadata.MetadataDeleteIndexService;
import org.elasticsearch.cluster.metadata.MetadataIndexTemplateService;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.Priority;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.common.util.concurrent.EsExecutors;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.index.Index;
import org.elasticsearch.indices.SystemDataStreamDescriptor;
import org.elasticsearch.indices.SystemIndices;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestUtils;
import org.elasticsearch.rest.action.RestToXContentListener;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.threadpool.ThreadPool;
import org.elasticsearch.transport.TransportService;

/**
 * {@code PUT}, {@code GET} and {@code DELETE /_data_stream/{name}} for the Elasticsearch 8 dev
 * cluster.
 *
 * <p>Why it exists: Elasticsearch serves these endpoints from its data-streams module
 * (org.elasticsearch.datastreams.DataStreamsPlugin), which is not published on Maven Central
 * (org.elasticsearch.plugin:data-streams and org.elasticsearch.module:data-streams at 8.17.0:
 * "Could not find artifact"), so a node built from Maven Central answers them with HTTP 405.
 * The work itself is in the server jar: the action types
 * ({@link CreateDataStreamAction}, {@link GetDataStreamAction}, {@link DeleteDataStreamAction}),
 * {@link MetadataCreateDataStreamService} (the same service the server uses when a bulk
 * {@code create} auto-creates a stream), {@link MetadataDeleteIndexService} and
 * {@link DataStreamsActionUtil}; what this module adds is the transport actions and REST handlers
 * that the data-streams module registers for them, standing in for its
 * CreateDataStreamTransportAction, GetDataStreamsTransportAction,
 * DeleteDataStreamTransportAction, RestCreateDataStreamAction, RestGetDataStreamsAction and
 * RestDeleteDataStreamAction.
 *
 * <p>Only those three endpoints: no {@code _rollover} of a stream's write index beyond what the
 * server itself does, no {@code _data_stream/_stats}, {@code _migrate}, {@code _modify},
 * {@code _promote}, no data stream lifecycle (retention) service, no time-series index
 * creation; GET reports every backing index as unmanaged (no ILM here either). It is loaded from
 * the node home's modules/ directory (plugin-descriptor.properties in src/modules) like any
 * Elasticsearch module; compiled against the 8.17 server by deploy/devcluster-es8 only (9.x's
 * form, with projects and a local GET, is {@code io.bulkfleet.devcluster.esds9}).
 */
public final class DataStreamsPlugin extends Plugin implements ActionPlugin {

    @Override
    public List<ActionHandler<? extends ActionRequest, ? extends ActionResponse>> getActions() {
        return List.of(new ActionHandler<>(CreateDataStreamAction.INSTANCE, CreateTransport.class),
            new ActionHandler<>(GetDataStreamAction.INSTANCE, GetTransport.class),
            new ActionHandler<>(DeleteDataStreamAction.INSTANCE, DeleteTransport.class));
    }

    @Override
    public Collection<RestHandler> getRestHandlers(Settings settings, NamedWriteableRegistry registry, RestController controller,
        ClusterSettings clusterSettings, IndexScopedSettings indexScopedSettings, SettingsFilter settingsFilter,
        IndexNameExpressionResolver resolver, Supplier<DiscoveryNodes> nodes, Predicate<NodeFeature> features) {
        return List.of(new CreateRest(), new GetRest(), new DeleteRest());
    }

    /** Creates one data stream on the elected master from the template matching its name. */
    public static final class CreateTransport extends AcknowledgedTransportMasterNodeAction<CreateDataStreamAction.Request> {
        private final MetadataCreateDataStreamService service;
        private final SystemIndices systemIndices;

        @Inject
        public CreateTransport(TransportService transportService, ClusterService clusterService, ThreadPool threadPool,
            ActionFilters actionFilters, IndexNameExpressionResolver resolver, MetadataCreateDataStreamService service,
            SystemIndices systemIndices) {
            super(CreateDataStreamAction.NAME, transportService, clusterService, threadPool, actionFilters,
                CreateDataStreamAction.Request::new, resolver, EsExecutors.DIRECT_EXECUTOR_SERVICE);
            this.service = service;
            this.systemIndices = systemIndices;
        }

        @Override
        protected void masterOperation(Task task, CreateDataStreamAction.Request request, ClusterState state,
            ActionListener<AcknowledgedResponse> listener) {
            // a system data stream's name is refused here unless the caller may use it
            SystemDataStreamDescriptor system = systemIndices.validateDataStreamAccess(request.getName(), threadPool.getThreadContext());
            service.createDataStream(new MetadataCreateDataStreamService.CreateDataStreamClusterStateUpdateRequest(request.getName(),
                request.getStartTime(), system, request.masterNodeTimeout(), request.ackTimeout(), true), listener);
        }

        @Override
        protected ClusterBlockException checkBlock(CreateDataStreamAction.Request request, ClusterState state) {
            return state.blocks().globalBlockedException(ClusterBlockLevel.METADATA_WRITE);
        }
    }

    /** Lists the data streams the request's names and wildcards resolve to (404 for a missing name). */
    public static final class GetTransport
        extends TransportMasterNodeReadAction<GetDataStreamAction.Request, GetDataStreamAction.Response> {

        @Inject
        public GetTransport(TransportService transportService, ClusterService clusterService, ThreadPool threadPool,
            ActionFilters actionFilters, IndexNameExpressionResolver resolver) {
            super(GetDataStreamAction.NAME, transportService, clusterService, threadPool, actionFilters, GetDataStreamAction.Request::new,
                resolver, GetDataStreamAction.Response::new, EsExecutors.DIRECT_EXECUTOR_SERVICE);
        }

        @Override
        protected void masterOperation(Task task, GetDataStreamAction.Request request, ClusterState state,
            ActionListener<GetDataStreamAction.Response> listener) {
            List<String> names = DataStreamsActionUtil.getDataStreamNames(indexNameExpressionResolver, state, request.getNames(),
                request.indicesOptions());
            Map<String, DataStream> all = state.metadata().dataStreams();
            List<GetDataStreamAction.Response.DataStreamInfo> out = names.stream().sorted().map(n -> info(state, all.get(n))).toList();
            listener.onResponse(new GetDataStreamAction.Response(out));
        }

        private static GetDataStreamAction.Response.DataStreamInfo info(ClusterState state, DataStream ds) {
            String template = MetadataIndexTemplateService.findV2Template(state.metadata(), ds.getName(), false);
            String ilm = template == null ? null : MetadataIndexTemplateService.resolveSettings(state.metadata(), template)
                .get("index.lifecycle.name");
            Map<Index, GetDataStreamAction.Response.IndexProperties> props = new HashMap<>();
            List<Index> indices = new java.util.ArrayList<>(ds.getIndices());
            indices.addAll(ds.getFailureIndices().getIndices());
            for (Index ix : indices) {
                props.put(ix, new GetDataStreamAction.Response.IndexProperties(true, null,
                    GetDataStreamAction.Response.ManagedBy.UNMANAGED));
            }
            ClusterStateHealth health = new ClusterStateHealth(state, indices.stream().map(Index::getName).toArray(String[]::new));
            return new GetDataStreamAction.Response.DataStreamInfo(ds, health.getStatus(), template, ilm, null, props, true, null);
        }

        @Override
        protected ClusterBlockException checkBlock(GetDataStreamAction.Request request, ClusterState state) {
            return state.blocks().globalBlockedException(ClusterBlockLevel.METADATA_READ);
        }
    }

    /** Removes data streams and deletes their backing (and failure store) indices in one cluster state update. */
    public static final class DeleteTransport extends AcknowledgedTransportMasterNodeAction<DeleteDataStreamAction.Request> {
        private final SystemIndices systemIndices;
        private final Settings settings;

        @Inject
        public DeleteTransport(TransportService transportService, ClusterService clusterService, ThreadPool threadPool,
            ActionFilters actionFilters, IndexNameExpressionResolver resolver, SystemIndices systemIndices, Settings settings) {
            super(DeleteDataStreamAction.NAME, transportService, clusterService, threadPool, actionFilters,
                DeleteDataStreamAction.Request::new, resolver, EsExecutors.DIRECT_EXECUTOR_SERVICE);
            this.systemIndices = systemIndices;
            this.settings = settings;
        }

        @Override
        protected void masterOperation(Task task, DeleteDataStreamAction.Request request, ClusterState state,
            ActionListener<AcknowledgedResponse> listener) {
            // resolve once now, so a missing name answers 404 before a cluster state task is queued
            for (String n : DataStreamsActionUtil.getDataStreamNames(indexNameExpressionResolver, state, request.getNames(),
                request.indicesOptions())) {
                systemIndices.validateDataStreamAccess(n, threadPool.getThreadContext());
            }
            clusterService.submitUnbatchedStateUpdateTask("bulkfleet-delete-data-stream ["
                + Strings.arrayToCommaDelimitedString(request.getNames()) + "]",
                new ClusterStateUpdateTask(Priority.HIGH, request.masterNodeTimeout()) {
                    @Override
                    public ClusterState execute(ClusterState current) {
                        return remove(current, request);
                    }

                    @Override
                    public void onFailure(Exception e) {
                        listener.onFailure(e);
                    }

                    @Override
                    public void clusterStateProcessed(ClusterState before, ClusterState after) {
                        listener.onResponse(AcknowledgedResponse.TRUE);
                    }
                });
        }

        private ClusterState remove(ClusterState current, DeleteDataStreamAction.Request request) {
            Set<String> names = new HashSet<>(DataStreamsActionUtil.getDataStreamNames(indexNameExpressionResolver, current,
                request.getNames(), request.indicesOptions()));
            if (names.isEmpty()) {
                if (request.isWildcardExpressionsOriginallySpecified()) {
                    return current;
                }
                throw new ResourceNotFoundException("data streams " + java.util.Arrays.toString(request.getNames()) + " not found");
            }
            Set<Index> indices = new HashSet<>();
            Metadata.Builder md = Metadata.builder(current.metadata());
            for (String n : names) {
                systemIndices.validateDataStreamAccess(n, threadPool.getThreadContext());
                DataStream ds = current.metadata().dataStreams().get(n);
                indices.addAll(ds.getIndices());
                indices.addAll(ds.getFailureIndices().getIndices());
                md.removeDataStream(n);
            }
            // the streams go first: an index still named by a stream could not be deleted
            ClusterState without = ClusterState.builder(current).metadata(md).build();
            return MetadataDeleteIndexService.deleteIndices(without, indices, settings);
        }

        @Override
        protected ClusterBlockException checkBlock(DeleteDataStreamAction.Request request, ClusterState state) {
            return state.blocks().globalBlockedException(ClusterBlockLevel.METADATA_WRITE);
        }
    }

    /** {@code PUT /_data_stream/{name}} (master_timeout, timeout). */
    static final class CreateRest extends BaseRestHandler {
        @Override
        public String getName() {
            return "bulkfleet_create_data_stream_action";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.PUT, "/_data_stream/{name}"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
            CreateDataStreamAction.Request r = new CreateDataStreamAction.Request(RestUtils.getMasterNodeTimeout(request),
                RestUtils.getAckTimeout(request), request.param("name"));
            return channel -> client.execute(CreateDataStreamAction.INSTANCE, r, new RestToXContentListener<>(channel));
        }
    }

    /** {@code GET /_data_stream} and {@code GET /_data_stream/{name}} (names and wildcards, comma separated). */
    static final class GetRest extends BaseRestHandler {
        @Override
        public String getName() {
            return "bulkfleet_get_data_streams_action";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.GET, "/_data_stream"), new Route(RestRequest.Method.GET, "/_data_stream/{name}"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
            GetDataStreamAction.Request r = new GetDataStreamAction.Request(RestUtils.getMasterNodeTimeout(request),
                Strings.splitStringByCommaToArray(request.param("name")));
            r.includeDefaults(request.paramAsBoolean("include_defaults", false));
            r.indicesOptions(IndicesOptions.fromRequest(request, r.indicesOptions()));
            return channel -> client.execute(GetDataStreamAction.INSTANCE, r, new RestToXContentListener<>(channel));
        }
    }

    /** {@code DELETE /_data_stream/{name}} (names and wildcards, comma separated). */
    static final class DeleteRest extends BaseRestHandler {
        @Override
        public String getName() {
            return "bulkfleet_delete_data_stream_action";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.DELETE, "/_data_stream/{name}"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
            DeleteDataStreamAction.Request r = new DeleteDataStreamAction.Request(RestUtils.getMasterNodeTimeout(request),
                Strings.splitStringByCommaToArray(request.param("name")));
            r.indicesOptions(IndicesOptions.fromRequest(request, r.indicesOptions()));
            return channel -> client.execute(DeleteDataStreamAction.INSTANCE, r, new RestToXContentListener<>(channel));
        }
    }
}
