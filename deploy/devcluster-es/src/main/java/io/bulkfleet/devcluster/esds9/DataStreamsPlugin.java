// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esds9;

import java.util.ArrayList;
import java.util.Arrays;
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
import org.elasticsearch.action.datastreams.CreateDataStreamAction;
import org.elasticsearch.action.datastreams.DataStreamsActionUtil;
import org.elasticsearch.action.datastreams.DeleteDataStreamAction;
import org.elasticsearch.action.datastreams.GetDataStreamAction;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.action.support.IndicesOptions;
import org.elasticsearch.action.support.local.TransportLocalProjectMetadataAction;
import org.elasticsearch.action.support.master.AcknowledgedResponse;
import org.elasticsearch.action.support.master.AcknowledgedTransportMasterNodeAction;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.ClusterStateUpdateTask;
import org.elasticsearch.cluster.ProjectState;
import org.elasticsearch.cluster.block.ClusterBlockException;
import org.elasticsearch.cluster.block.ClusterBlockLevel;
import org.elasticsearch.cluster.health.ClusterStateHealth;
import org.elasticsearch.cluster.metadata.DataStream;
import org.elasticsearch.cluster.metadata.DataStreamFailureStoreSettings;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.metadata.MetadataCreateDataStreamService;
import org.elasticsearch.cluster.metadata.MetadataDeleteIndexService;
import org.elasticsearch.cluster.metadata.MetadataIndexTemplateService;
import org.elasticsearch.cluster.metadata.ProjectMetadata;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.project.ProjectResolver;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.Priority;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.EsExecutors;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.index.Index;
import org.elasticsearch.indices.SystemDataStreamDescriptor;
import org.elasticsearch.indices.SystemIndices;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestUtils;
import org.elasticsearch.rest.action.RestToXContentListener;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.threadpool.ThreadPool;
import org.elasticsearch.transport.TransportService;

/**
 * {@code PUT}, {@code GET} and {@code DELETE /_data_stream/{name}} for the Elasticsearch 9 dev
 * cluster: the 9.x form of {@code io.bulkfleet.devcluster.esds.DataStreamsPlugin}
 * (8.x), built only by deploy/devcluster-es9.
 *
 * <p>Why it exists: Elasticsearch serves these endpoints from its data-streams module, which is
 * not on Maven Central (org.elasticsearch.plugin:data-streams and
 * org.elasticsearch.module:data-streams 9.2.0: "Could not find artifact"), so a node built from
 * Maven Central answers them with HTTP 405. It stands in for the module's
 * CreateDataStreamTransportAction, TransportGetDataStreamsAction,
 * DeleteDataStreamTransportAction and their REST handlers; the work is the 9.2 server jar's
 * ({@link MetadataCreateDataStreamService}, {@link MetadataDeleteIndexService},
 * {@link DataStreamsActionUtil}, the action types). What differs from 8.x is 9.x's API: cluster
 * metadata is per project ({@link ProjectResolver}, {@link ProjectMetadata}), and GET is a
 * local (not master) action. Only the default project exists on this node.
 *
 * <p>Not there, as on 8.x: {@code _rollover} beyond the server's own, {@code _data_stream/_stats},
 * {@code _migrate}, {@code _modify}, {@code _promote}, the data stream lifecycle service,
 * time-series index creation; GET reports every backing index unmanaged.
 */
public final class DataStreamsPlugin extends Plugin implements ActionPlugin {

    @Override
    public List<ActionHandler> getActions() {
        return List.of(new ActionHandler(CreateDataStreamAction.INSTANCE, CreateTransport.class),
            new ActionHandler(GetDataStreamAction.INSTANCE, GetTransport.class),
            new ActionHandler(DeleteDataStreamAction.INSTANCE, DeleteTransport.class));
    }

    @Override
    public Collection<RestHandler> getRestHandlers(RestHandlersServices services, Supplier<DiscoveryNodes> nodes,
        Predicate<NodeFeature> features) {
        return List.of(new CreateRest(), new GetRest(), new DeleteRest());
    }

    /** Creates one data stream on the elected master from the template matching its name. */
    public static final class CreateTransport extends AcknowledgedTransportMasterNodeAction<CreateDataStreamAction.Request> {
        private final MetadataCreateDataStreamService service;
        private final SystemIndices systemIndices;
        private final ProjectResolver projects;

        @Inject
        public CreateTransport(TransportService transportService, ClusterService clusterService, ThreadPool threadPool,
            ActionFilters actionFilters, ProjectResolver projects, MetadataCreateDataStreamService service, SystemIndices systemIndices) {
            super(CreateDataStreamAction.NAME, transportService, clusterService, threadPool, actionFilters,
                CreateDataStreamAction.Request::new, EsExecutors.DIRECT_EXECUTOR_SERVICE);
            this.service = service;
            this.systemIndices = systemIndices;
            this.projects = projects;
        }

        @Override
        protected void masterOperation(Task task, CreateDataStreamAction.Request request, ClusterState state,
            ActionListener<AcknowledgedResponse> listener) {
            SystemDataStreamDescriptor system = systemIndices.validateDataStreamAccess(request.getName(), threadPool.getThreadContext());
            service.createDataStream(new MetadataCreateDataStreamService.CreateDataStreamClusterStateUpdateRequest(projects.getProjectId(),
                request.getName(), request.getStartTime(), system, request.masterNodeTimeout(), request.ackTimeout()), listener);
        }

        @Override
        protected ClusterBlockException checkBlock(CreateDataStreamAction.Request request, ClusterState state) {
            return state.blocks().globalBlockedException(projects.getProjectId(), ClusterBlockLevel.METADATA_WRITE);
        }
    }

    /** Lists the data streams the request's names and wildcards resolve to (404 for a missing name), on the local node. */
    public static final class GetTransport extends TransportLocalProjectMetadataAction<GetDataStreamAction.Request, GetDataStreamAction.Response> {
        private final IndexNameExpressionResolver resolver;
        private final DataStreamFailureStoreSettings failureStore;

        @Inject
        public GetTransport(TransportService transportService, ClusterService clusterService, ActionFilters actionFilters,
            ProjectResolver projects, IndexNameExpressionResolver resolver) {
            super(GetDataStreamAction.NAME, actionFilters, transportService.getTaskManager(), clusterService,
                EsExecutors.DIRECT_EXECUTOR_SERVICE, projects);
            this.resolver = resolver;
            this.failureStore = DataStreamFailureStoreSettings.create(clusterService.getClusterSettings());
        }

        @Override
        protected void localClusterStateOperation(Task task, GetDataStreamAction.Request request, ProjectState state,
            ActionListener<GetDataStreamAction.Response> listener) {
            ProjectMetadata project = state.metadata();
            List<String> names = DataStreamsActionUtil.getDataStreamNames(resolver, project, request.getNames(), request.indicesOptions());
            List<GetDataStreamAction.Response.DataStreamInfo> out = names.stream().sorted()
                .map(n -> info(state, project.dataStreams().get(n))).toList();
            listener.onResponse(new GetDataStreamAction.Response(out));
        }

        private GetDataStreamAction.Response.DataStreamInfo info(ProjectState state, DataStream ds) {
            ProjectMetadata project = state.metadata();
            String template = MetadataIndexTemplateService.findV2Template(project, ds.getName(), false);
            String ilm = template == null ? null : MetadataIndexTemplateService.resolveSettings(project, template).get("index.lifecycle.name");
            List<Index> indices = new ArrayList<>(ds.getIndices());
            indices.addAll(ds.getFailureIndices());
            Map<Index, GetDataStreamAction.Response.IndexProperties> props = new HashMap<>();
            for (Index ix : indices) {
                props.put(ix, new GetDataStreamAction.Response.IndexProperties(true, null,
                    GetDataStreamAction.Response.ManagedBy.UNMANAGED, modeOf(project, ix)));
            }
            ClusterStateHealth health = new ClusterStateHealth(state.cluster(), indices.stream().map(Index::getName).toArray(String[]::new),
                state.projectId());
            // the stream's mode: its own (time series, logsdb) or, when it has none, its write index's
            String mode = ds.getIndexMode() != null ? ds.getIndexMode().getName() : modeOf(project, ds.getWriteIndex());
            return new GetDataStreamAction.Response.DataStreamInfo(ds, ds.isFailureStoreEffectivelyEnabled(failureStore), health.getStatus(),
                template, ilm, null, props, true, null, mode);
        }

        /** An index's index.mode name ("standard", "time_series", ...), null when it is not in the project. */
        private static String modeOf(ProjectMetadata project, Index ix) {
            var im = project.index(ix);
            return im == null || im.getIndexMode() == null ? null : im.getIndexMode().getName();
        }

        @Override
        protected ClusterBlockException checkBlock(GetDataStreamAction.Request request, ProjectState state) {
            return state.blocks().globalBlockedException(state.projectId(), ClusterBlockLevel.METADATA_READ);
        }
    }

    /** Removes data streams and deletes their backing (and failure store) indices in one cluster state update. */
    public static final class DeleteTransport extends AcknowledgedTransportMasterNodeAction<DeleteDataStreamAction.Request> {
        private final SystemIndices systemIndices;
        private final Settings settings;
        private final ProjectResolver projects;
        private final IndexNameExpressionResolver resolver;

        @Inject
        public DeleteTransport(TransportService transportService, ClusterService clusterService, ThreadPool threadPool,
            ActionFilters actionFilters, ProjectResolver projects, IndexNameExpressionResolver resolver, SystemIndices systemIndices,
            Settings settings) {
            super(DeleteDataStreamAction.NAME, transportService, clusterService, threadPool, actionFilters,
                DeleteDataStreamAction.Request::new, EsExecutors.DIRECT_EXECUTOR_SERVICE);
            this.systemIndices = systemIndices;
            this.settings = settings;
            this.projects = projects;
            this.resolver = resolver;
        }

        @Override
        protected void masterOperation(Task task, DeleteDataStreamAction.Request request, ClusterState state,
            ActionListener<AcknowledgedResponse> listener) {
            // resolve once now, so a missing name answers 404 before a cluster state task is queued
            for (String n : DataStreamsActionUtil.getDataStreamNames(resolver, projects.getProjectMetadata(state), request.getNames(),
                request.indicesOptions())) {
                systemIndices.validateDataStreamAccess(n, threadPool.getThreadContext());
            }
            clusterService.submitUnbatchedStateUpdateTask("bulkfleet-delete-data-stream ["
                + Strings.arrayToCommaDelimitedString(request.getNames()) + "]",
                new ClusterStateUpdateTask(Priority.HIGH, request.masterNodeTimeout()) {
                    @Override
                    public ClusterState execute(ClusterState current) {
                        return remove(projects.getProjectState(current), request);
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

        private ClusterState remove(ProjectState current, DeleteDataStreamAction.Request request) {
            ProjectMetadata project = current.metadata();
            Set<String> names = new HashSet<>(DataStreamsActionUtil.getDataStreamNames(resolver, project, request.getNames(),
                request.indicesOptions()));
            if (names.isEmpty()) {
                if (request.isWildcardExpressionsOriginallySpecified()) {
                    return current.cluster();
                }
                throw new ResourceNotFoundException("data streams " + Arrays.toString(request.getNames()) + " not found");
            }
            Set<Index> indices = new HashSet<>();
            ProjectMetadata.Builder md = ProjectMetadata.builder(project);
            for (String n : names) {
                systemIndices.validateDataStreamAccess(n, threadPool.getThreadContext());
                DataStream ds = project.dataStreams().get(n);
                indices.addAll(ds.getIndices());
                indices.addAll(ds.getFailureIndices());
                md.removeDataStream(n);
            }
            // the streams go first: an index still named by a stream could not be deleted
            ProjectState without = current.updateProject(md.build());
            return MetadataDeleteIndexService.deleteIndices(without, indices, settings);
        }

        @Override
        protected ClusterBlockException checkBlock(DeleteDataStreamAction.Request request, ClusterState state) {
            return state.blocks().globalBlockedException(projects.getProjectId(), ClusterBlockLevel.METADATA_WRITE);
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
