/**
 * /config-validation: ConfigMap name → its parser's verdict (knative/pkg webhook/configmaps, spec §5).
 * A validator returns Knative's error text, or undefined when the data is acceptable. Names without a
 * validator are allowed without inspection (spec §1.1).
 */
export type ConfigMapValidator = (data: Readonly<Record<string, string>>, annotations: Readonly<Record<string, string>>) => string | undefined;

export class ConfigMapValidators {
  private readonly byName: ReadonlyMap<string, ConfigMapValidator>;

  constructor(entries: Iterable<readonly [string, ConfigMapValidator]> = []) {
    this.byName = new Map(entries);
  }

  lookup(name: string): ConfigMapValidator | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }
}
