// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esanalysis;

import java.util.Map;

import org.apache.lucene.analysis.Analyzer;
import org.elasticsearch.index.analysis.AnalyzerProvider;
import org.elasticsearch.index.analysis.CharFilterFactory;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.index.analysis.TokenizerFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

/**
 * The common analysis components for the Elasticsearch dev cluster, under Elasticsearch's type
 * names with Elasticsearch's parameters: Elasticsearch's analysis-common module is not published
 * on Maven Central, Lucene's analysis-common (which that module wraps, and which the server jar
 * already depends on) is. The same source builds for 8.x and 9.x: it uses only the component
 * interfaces (TokenizerFactory, TokenFilterFactory, CharFilterFactory, AnalyzerProvider), which
 * did not change between them. Not here: synonym, synonym_graph, the script-based condition and
 * predicate_token_filter, hunspell dictionaries from files, *_path word lists, the compound word
 * filters, multiplexer, min_hash, delimited_payload, stemmer_override (the README lists them).
 */
public final class AnalysisCommonPlugin extends Plugin implements AnalysisPlugin {

    @Override
    public Map<String, AnalysisProvider<TokenizerFactory>> getTokenizers() {
        return Tokenizers.all();
    }

    @Override
    public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
        return Filters.all();
    }

    @Override
    public Map<String, AnalysisProvider<CharFilterFactory>> getCharFilters() {
        return CharFilters.all();
    }

    @Override
    public Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> getAnalyzers() {
        return Analyzers.all();
    }
}
