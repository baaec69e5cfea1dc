# demo_extras.sh (mrf): what scripts/demo.sh shows of an mrf result beyond the
# stored rows, sourced in a subshell with the variables demo.sh's header lists:
# the Dice score per class of each WU's first result against the phantom's
# truth labels (helix-wu mrf example writes them beside the phantom, under
# input/), and PNG slices of the segmentation over the CT volume.
# shellcheck shell=bash disable=SC2154  # the variables come from scripts/demo.sh

for i in "${!work_units[@]}"; do
  wu=${work_units[i]} slot=${first_slots[i]}

  step "mrf $wu: Dice per class, segmentation vs the phantom's truth (scripts/dice.py)"
  # Informative only: a missing zstd command must not sink the demo.
  python3 "$root/scripts/dice.py" "$slot/labels" "$example_dir/input/phantom_truth.hxl" >"$kind_out/$wu.dice.txt" ||
    echo "demo: warning: no Dice scores (see the line above)" >&2
  indent <"$kind_out/$wu.dice.txt"

  step "mrf $wu: PNG slices (helix-wu mrf render)"
  "$helix_wu" mrf render --volume "$example_dir/$wu.volume.hxv" --labels "$slot/labels" --out "$kind_out/render" \
    --slices 4 | indent
done
look "demo-out/mrf/render/*.png" "CT slices with the segmentation over them"
look "demo-out/mrf/*.dice.txt" "Dice per class against the phantom's truth"
look "demo-out/mrf/<wu>/slot1/summary" "the result's JSON summary (classes, energy trace)"
