//! Morph weights by name: the panel's sliders, `--morph NAME=WEIGHT` and the control hook's
//! `morph NAME WEIGHT` all set [`MorphControls`], and every entity whose `MorphWeights` drive a
//! layer's targets takes the weight of each target it names.

use std::collections::BTreeMap;

use bevy::mesh::morph::MorphWeights;
use bevy::prelude::*;

use crate::plugin::MorphTargetNames;

/// The weights the user chose, by morph name; a name not here is at 0.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct MorphControls {
    pub weights: BTreeMap<String, f32>,
}

impl MorphControls {
    pub fn weight(&self, name: &str) -> f32 {
        self.weights.get(name).copied().unwrap_or(0.0)
    }

    /// Sets one morph's weight; LightWave's sliders go from 0 to 1, but a morph may be pushed past
    /// them as LightWave allows (−1 to 2 here), and a non-finite value is refused.
    pub fn set(&mut self, name: &str, weight: f32) -> Result<(), String> {
        if !weight.is_finite() {
            return Err(format!("morph {name}: weight {weight} is not a number"));
        }
        self.weights.insert(name.to_owned(), weight.clamp(-1.0, 2.0));
        Ok(())
    }
}

/// `NAME=WEIGHT`, as `--morph` takes it.
pub fn parse_morph_setting(s: &str) -> Result<(String, f32), String> {
    let (name, weight) = s.rsplit_once('=').ok_or_else(|| format!("expected NAME=WEIGHT, got {s}"))?;
    let weight: f32 = weight.trim().parse().map_err(|e| format!("{weight}: {e}"))?;
    if name.is_empty() || !weight.is_finite() {
        return Err(format!("expected NAME=WEIGHT with a number, got {s}"));
    }
    Ok((name.to_owned(), weight))
}

/// Copies the chosen weights into every set of morph weights, when they change or a model appears.
pub fn apply_morph_weights(
    controls: Res<MorphControls>,
    added: Query<(), Added<MorphTargetNames>>,
    mut weights: Query<(&MorphTargetNames, &mut MorphWeights)>,
) {
    if !controls.is_changed() && added.is_empty() {
        return;
    }
    for (names, mut weights) in &mut weights {
        let wanted: Vec<f32> = names.0.iter().map(|n| controls.weight(n)).collect();
        if weights.weights() != wanted.as_slice() {
            for (slot, w) in weights.weights_mut().iter_mut().zip(wanted) {
                *slot = w;
            }
        }
    }
}
