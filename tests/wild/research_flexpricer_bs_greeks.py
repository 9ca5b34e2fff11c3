# Source: https://github.com/albertium/FlexPricer/blob/1324401d4558a19144458dcfbb39716e730bec8d/analytical_example.py (albertium/FlexPricer, a small option-pricing experiment: analytic Black-Scholes price and greeks by autodiff, 2020)
# License: none stated (see source)
# Changed: plotly imports and plotting calls dropped (the subplot loop kept, printing each plotted series instead of adding a trace; a print of rhos, computed but not plotted, added); smaller sizes (200 -> 11 strikes)

from typing import Any, Union

import jax.numpy as np
import jax.scipy as sp
import jax as jx


@jx.jit
def price_bs(s: float, k: float, r: float, q: float, sig: float, t: float) -> float:
    total_vol: Union[float, Any] = sig * np.sqrt(t)
    d1 = (np.log(s / k) + (r - q) * t) / total_vol + 0.5 * total_vol
    d2 = d1 - total_vol
    return s * np.exp(-q * t) * sp.stats.norm.cdf(d1) - k * np.exp(-r * t) * sp.stats.norm.cdf(d2)


def price_put(s: float, k: float, r: float, q: float, sig: float, t: float) -> float:
    total_vol = sig * np.sqrt(t)
    d1 = (np.log(s / k) + (r - q) * t) / total_vol + 0.5 * total_vol
    d2 = d1 - total_vol
    return k * np.exp(-r * t) * sp.stats.norm.cdf(-d2) - s * np.exp(-q * t) * sp.stats.norm.cdf(-d1)


def main():
    s = 100.0
    k = 100.0
    r = 0.0
    q = 0.0
    sig = 0.2
    t = 0.5
    jacob_fn = jx.vmap(jx.value_and_grad(price_bs, (0, 4, 5)), in_axes=(None, 0, None, None, None, None))
    gamma_fn = jx.vmap(jx.grad(jx.grad(price_bs, 0), 0), in_axes=(None, 0, None, None, None, None))
    volga_fn = jx.vmap(jx.grad(jx.grad(price_bs, 4), 4), in_axes=(None, 0, None, None, None, None))

    strikes = np.linspace(50, 150, 11)
    prices, (deltas, vegas, rhos) = jacob_fn(s, strikes, r, q, sig, t)
    gammas = gamma_fn(s, strikes, r, q, sig, t)
    volgas = volga_fn(s, strikes, r, q, sig, t)
    # panel = pd.DataFrame({'strike': strikes, 'price': prices, 'delta': deltas, 'gamma': gammas, 'vega': vegas})
    # fig = go.Figure()
    for idx, data in enumerate([prices, deltas, gammas, vegas, volgas]):
        print(idx, data)
        # fig.add_trace(go.Scatter(x=strikes, y=data, yaxis='y' if row == 0 else f'y{row}'))
    print(rhos)


if __name__ == '__main__':
    main()