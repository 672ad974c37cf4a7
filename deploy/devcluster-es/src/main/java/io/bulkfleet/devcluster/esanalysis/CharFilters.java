// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esanalysis;

import java.io.Reader;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import org.apache.lucene.analysis.charfilter.HTMLStripCharFilter;
import org.apache.lucene.analysis.charfilter.MappingCharFilter;
import org.apache.lucene.analysis.charfilter.NormalizeCharMap;
import org.apache.lucene.analysis.pattern.PatternReplaceCharFilter;
import org.elasticsearch.index.analysis.CharFilterFactory;
import org.elasticsearch.index.analysis.NormalizingCharFilterFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;

/**
 * Elasticsearch's analysis-common character filters (elastic.co "Character filters reference"):
 * html_strip, mapping, pattern_replace; the last two allowed in normalizers, as in Elasticsearch.
 */
final class CharFilters {
    private CharFilters() {
    }

    private static CharFilterFactory of(String name, boolean normalizing, UnaryOperator<Reader> op) {
        if (normalizing) {
            return new NormalizingCharFilterFactory() {
                @Override
                public String name() {
                    return name;
                }

                @Override
                public Reader create(Reader r) {
                    return op.apply(r);
                }
            };
        }
        return new CharFilterFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Reader create(Reader r) {
                return op.apply(r);
            }
        };
    }

    static Map<String, AnalysisProvider<CharFilterFactory>> all() {
        Map<String, AnalysisProvider<CharFilterFactory>> m = new TreeMap<>();
        m.put("html_strip", (is, env, name, s) -> {
            List<String> tags = Params.list(s, "escaped_tags");
            Set<String> escaped = tags == null ? null : new HashSet<>(tags);
            return of(name, false, r -> escaped == null ? new HTMLStripCharFilter(r) : new HTMLStripCharFilter(r, escaped));
        });
        m.put("mapping", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            List<String> rules = Params.list(s, "mappings");
            if (rules == null) {
                throw new IllegalArgumentException("mapping requires either `mappings` or `mappings_path` to be configured");
            }
            NormalizeCharMap.Builder b = new NormalizeCharMap.Builder();
            for (String[] r : Params.rules(rules, "mappings")) {
                b.add(r[0], r[1]);
            }
            NormalizeCharMap map = b.build();
            return of(name, true, r -> new MappingCharFilter(map, r));
        }));
        m.put("pattern_replace", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            Pattern p = Params.pattern(s, "pattern", null);
            String repl = s.get("replacement", "");
            return of(name, true, r -> new PatternReplaceCharFilter(p, repl, r));
        }));
        return m;
    }
}
