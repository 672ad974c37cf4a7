// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esanalysis;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.core.SimpleAnalyzer;
import org.apache.lucene.analysis.core.StopAnalyzer;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.FingerprintFilter;
import org.apache.lucene.analysis.pattern.PatternTokenizer;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.analysis.AnalyzerProvider;
import org.elasticsearch.index.analysis.AnalyzerScope;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;

/**
 * Elasticsearch's analysis-common analyzer types (elastic.co "Built-in analyzer reference" and
 * "Language analyzers"): keyword, whitespace, simple, stop, pattern, fingerprint, snowball and
 * the language analyzers, the last on Lucene's analyzer of that language with Elasticsearch's
 * {@code stopwords} and {@code stem_exclusion} parameters.
 */
final class Analyzers {
    private Analyzers() {
    }

    private static final Map<String, String> LANGUAGES = new TreeMap<>();

    static {
        String[][] l = {{"arabic", "ar.ArabicAnalyzer"}, {"armenian", "hy.ArmenianAnalyzer"}, {"basque", "eu.BasqueAnalyzer"},
            {"bengali", "bn.BengaliAnalyzer"}, {"brazilian", "br.BrazilianAnalyzer"}, {"bulgarian", "bg.BulgarianAnalyzer"},
            {"catalan", "ca.CatalanAnalyzer"}, {"cjk", "cjk.CJKAnalyzer"}, {"czech", "cz.CzechAnalyzer"},
            {"danish", "da.DanishAnalyzer"}, {"dutch", "nl.DutchAnalyzer"}, {"english", "en.EnglishAnalyzer"},
            {"estonian", "et.EstonianAnalyzer"}, {"finnish", "fi.FinnishAnalyzer"}, {"french", "fr.FrenchAnalyzer"},
            {"galician", "gl.GalicianAnalyzer"}, {"german", "de.GermanAnalyzer"}, {"greek", "el.GreekAnalyzer"},
            {"hindi", "hi.HindiAnalyzer"}, {"hungarian", "hu.HungarianAnalyzer"}, {"indonesian", "id.IndonesianAnalyzer"},
            {"irish", "ga.IrishAnalyzer"}, {"italian", "it.ItalianAnalyzer"}, {"latvian", "lv.LatvianAnalyzer"},
            {"lithuanian", "lt.LithuanianAnalyzer"}, {"norwegian", "no.NorwegianAnalyzer"}, {"persian", "fa.PersianAnalyzer"},
            {"portuguese", "pt.PortugueseAnalyzer"}, {"romanian", "ro.RomanianAnalyzer"}, {"russian", "ru.RussianAnalyzer"},
            {"sorani", "ckb.SoraniAnalyzer"}, {"spanish", "es.SpanishAnalyzer"}, {"swedish", "sv.SwedishAnalyzer"},
            {"thai", "th.ThaiAnalyzer"}, {"turkish", "tr.TurkishAnalyzer"}};
        for (String[] e : l) {
            LANGUAGES.put(e[0], "org.apache.lucene.analysis." + e[1]);
        }
    }

    /** The Lucene analyzer class of a language analyzer name, or null. */
    static Class<?> languageClass(String lang) {
        String cls = LANGUAGES.get(lang);
        if (cls == null) {
            return null;
        }
        try {
            return Class.forName(cls, true, EnglishAnalyzer.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    static <T extends Analyzer> AnalyzerProvider<T> provider(String name, T analyzer) {
        return new AnalyzerProvider<>() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public AnalyzerScope scope() {
                return AnalyzerScope.INDEX;
            }

            @Override
            public T get() {
                return analyzer;
            }
        };
    }

    /** An analyzer of a tokenizer and a filter chain. */
    static Analyzer chain(Supplier<Tokenizer> tok, java.util.function.UnaryOperator<TokenStream> filters,
        java.util.function.UnaryOperator<TokenStream> normalize) {
        return new Analyzer() {
            @Override
            protected TokenStreamComponents createComponents(String field) {
                Tokenizer t = tok.get();
                return new TokenStreamComponents(t, filters.apply(t));
            }

            @Override
            protected TokenStream normalize(String field, TokenStream in) {
                return normalize.apply(in);
            }
        };
    }

    static Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> all() {
        Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> m = new TreeMap<>();
        m.put("keyword", (is, env, name, s) -> provider(name, new KeywordAnalyzer()));
        m.put("whitespace", (is, env, name, s) -> provider(name, new WhitespaceAnalyzer()));
        m.put("simple", (is, env, name, s) -> provider(name, new SimpleAnalyzer()));
        m.put("stop", (is, env, name, s) -> provider(name,
            new StopAnalyzer(Params.words(s, "stopwords", EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, Params.bool(s, "stopwords_ignore_case", false)))));
        m.put("pattern", (is, env, name, s) -> {
            Pattern p = Params.pattern(s, "pattern", "\\W+");
            boolean lower = Params.bool(s, "lowercase", true);
            CharArraySet stop = Params.words(s, "stopwords", CharArraySet.EMPTY_SET, false);
            return provider(name, chain(() -> new PatternTokenizer(p, -1), ts -> {
                TokenStream r = lower ? new LowerCaseFilter(ts) : ts;
                return new StopFilter(r, stop);
            }, ts -> lower ? new LowerCaseFilter(ts) : ts));
        });
        m.put("fingerprint", (is, env, name, s) -> {
            String sep = s.get("separator", " ");
            int max = Params.intParam(s, "max_output_size", 255, 1);
            CharArraySet stop = Params.words(s, "stopwords", CharArraySet.EMPTY_SET, false);
            return provider(name, chain(StandardTokenizer::new,
                ts -> new FingerprintFilter(new StopFilter(new ASCIIFoldingFilter(new LowerCaseFilter(ts), false), stop), max, sep.charAt(0)),
                ts -> new ASCIIFoldingFilter(new LowerCaseFilter(ts), false)));
        });
        m.put("snowball", (is, env, name, s) -> {
            String lang = s.get("language", "English");
            CharArraySet stop = Params.words(s, "stopwords",
                lang.equalsIgnoreCase("english") ? EnglishAnalyzer.ENGLISH_STOP_WORDS_SET : CharArraySet.EMPTY_SET, false);
            return provider(name, chain(StandardTokenizer::new,
                ts -> new SnowballFilter(new StopFilter(new LowerCaseFilter(ts), stop), lang), LowerCaseFilter::new));
        });
        m.put("chinese", (is, env, name, s) -> provider(name, new StandardAnalyzer(
            Params.words(s, "stopwords", CharArraySet.EMPTY_SET, false))));
        for (String lang : LANGUAGES.keySet()) {
            m.put(lang, (is, env, name, s) -> provider(name, language(lang, s)));
        }
        return m;
    }

    private static Analyzer language(String lang, Settings s) {
        Class<?> c = languageClass(lang);
        if (c == null) {
            throw new IllegalArgumentException("analyzer [" + lang + "] is not available in this Lucene version");
        }
        try {
            CharArraySet stop = Params.words(s, "stopwords", null, false);
            if (stop == null) {
                stop = (CharArraySet) c.getMethod("getDefaultStopSet").invoke(null);
            }
            CharArraySet exclusion = Params.words(s, "stem_exclusion", CharArraySet.EMPTY_SET, false);
            try {
                return (Analyzer) c.getConstructor(CharArraySet.class, CharArraySet.class).newInstance(stop, exclusion);
            } catch (NoSuchMethodException e) {
                if (exclusion != CharArraySet.EMPTY_SET) {
                    throw new IllegalArgumentException("analyzer [" + lang + "] does not take [stem_exclusion]");
                }
                return (Analyzer) c.getConstructor(CharArraySet.class).newInstance(stop);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("analyzer [" + lang + "] could not be built: " + e, e);
        }
    }

}
