package chunkrelay.envelope.views;

import chunkrelay.translate.view.Regressions;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * The thresholds of the regressions view, {@code relay.views.regressions.*}.
 *
 * @param minShare       a function is judged (self and total apart) when its share is at least this on either side
 * @param minChange      it is flagged only when its share moved by at least this fraction of its baseline share
 * @param confidence     and when the confidence that the shares differ is at least this
 * @param minUnitSamples a process with fewer samples on a side is left out of that side's spread
 */
@ConfigurationProperties("relay.views.regressions")
public record RegressionsConfig(@Bindable(defaultValue = "0.001") double minShare,
                                @Bindable(defaultValue = "0.05") double minChange,
                                @Bindable(defaultValue = "0.99") double confidence,
                                @Bindable(defaultValue = "100") long minUnitSamples) {

    public Regressions.Settings settings() {
        return new Regressions.Settings(minShare, minChange, confidence, minUnitSamples);
    }
}
