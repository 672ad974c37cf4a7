// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.env.Environment;
import org.opensearch.index.mapper.MapperExtrasPlugin;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.script.expression.ExpressionPlugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * What the shared launcher (../devcluster-common) needs that differs between OpenSearch majors,
 * here for OpenSearch 2.x (2.19). The other major's Compat has the same members.
 */
final class Compat {

    /**
     * The classpath plugins every node loads: Netty4 HTTP/transport, analysis-common and
     * mapper-extras (match_only_text, scaled_float, rank_feature, search_as_you_type,
     * token_count); with the environment variable BF_DEVCLUSTER_SCRIPTING=1 also painless and
     * expression scripts (off by default: they add seconds to each node's start on 2 cores).
     */
    static final List<Class<? extends Plugin>> PLUGINS = plugins("1".equals(System.getenv("BF_DEVCLUSTER_SCRIPTING")));

    private static List<Class<? extends Plugin>> plugins(boolean scripting) {
        List<Class<? extends Plugin>> l = new ArrayList<>(List.of(Netty4Plugin.class, CommonAnalysisPlugin.class,
            MapperExtrasPlugin.class));
        if (scripting) {
            l.add(PainlessPlugin.class);
            l.add(ExpressionPlugin.class);
        }
        return List.copyOf(l);
    }

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
