// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.env.Environment;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * What the shared launcher (../devcluster-common) needs that differs between OpenSearch majors,
 * here for OpenSearch 2.x (2.19). The other major's Compat has the same members.
 */
final class Compat {

    /** The classpath plugins every node loads: Netty4 HTTP/transport and analysis-common. */
    static final List<Class<? extends Plugin>> PLUGINS = List.of(Netty4Plugin.class, CommonAnalysisPlugin.class);

    private Compat() {
    }

    /**
     * Creates the node's modules, plugins and logs directories (Node refuses to start without
     * them). Environment names them {@code *File()} in this major.
     *
     * @param env the node's prepared environment
     * @throws IOException when a directory cannot be created
     */
    static void createNodeDirectories(Environment env) throws IOException {
        Files.createDirectories(env.modulesFile());
        Files.createDirectories(env.pluginsFile());
        Files.createDirectories(env.logsFile());
    }
}
