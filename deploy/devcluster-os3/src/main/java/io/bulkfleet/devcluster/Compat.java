// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

import org.opensearch.analysis.common.CommonAnalysisModulePlugin;
import org.opensearch.env.Environment;
import org.opensearch.index.mapper.MapperExtrasModulePlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4ModulePlugin;

/**
 * What the shared launcher (../devcluster-common) needs that differs between OpenSearch majors,
 * here for OpenSearch 3.x (3.8). The other major's Compat has the same members.
 */
final class Compat {

    /** The classpath plugins every node loads: Netty4 HTTP/transport, analysis-common, mapper-extras. */
    static final List<Class<? extends Plugin>> PLUGINS = List.of(Netty4ModulePlugin.class, CommonAnalysisModulePlugin.class,
        MapperExtrasModulePlugin.class);

    private Compat() {
    }

    /**
     * Creates the node's modules, plugins and logs directories (Node refuses to start without
     * them). Environment names them {@code *Dir()} in this major.
     *
     * @param env the node's prepared environment
     * @throws IOException when a directory cannot be created
     */
    static void createNodeDirectories(Environment env) throws IOException {
        Files.createDirectories(env.modulesDir());
        Files.createDirectories(env.pluginsDir());
        Files.createDirectories(env.logsDir());
    }
}
