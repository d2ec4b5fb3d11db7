//! Pooling a model's token vectors into one vector per text, and scaling it to unit length.

use crate::registry::Pooling;

/// Pools `[rows, width, dim]` token vectors into one vector per row.
pub(crate) fn pool(
    data: &[f32],
    mask: &[i64],
    rows: usize,
    width: usize,
    dim: usize,
    pooling: Pooling,
) -> Vec<Vec<f32>> {
    (0..rows)
        .map(|row| {
            let base = row * width * dim;
            match pooling {
                Pooling::Cls => data[base..base + dim].to_vec(),
                Pooling::Mean => {
                    let mut sum = vec![0f32; dim];
                    let mut count = 0f32;
                    for col in 0..width {
                        if mask[row * width + col] == 0 {
                            continue;
                        }
                        count += 1.0;
                        let token = &data[base + col * dim..base + (col + 1) * dim];
                        for (acc, value) in sum.iter_mut().zip(token) {
                            *acc += value;
                        }
                    }
                    let count = count.max(1.0);
                    sum.iter_mut().for_each(|v| *v /= count);
                    sum
                }
            }
        })
        .collect()
}

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalize(mut vector: Vec<f32>) -> Vec<f32> {
    let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|v| *v /= norm);
    }
    vector
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_pooling_ignores_padding_and_cls_takes_the_first_token() {
        // Two rows, width 3, dim 2; row 1 has one padded position holding garbage.
        let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 10.0, 20.0, 30.0, 40.0, 999.0, 999.0];
        let mask = [1, 1, 1, 1, 1, 0];
        let mean = pool(&data, &mask, 2, 3, 2, Pooling::Mean);
        assert_eq!(mean, vec![vec![3.0, 4.0], vec![20.0, 30.0]]);
        let cls = pool(&data, &mask, 2, 3, 2, Pooling::Cls);
        assert_eq!(cls, vec![vec![1.0, 2.0], vec![10.0, 20.0]]);
    }

    #[test]
    fn normalize_gives_unit_length_and_keeps_zero() {
        let v = normalize(vec![3.0, 4.0]);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6);
        assert_eq!(normalize(vec![0.0, 0.0]), vec![0.0, 0.0]);
    }
}
