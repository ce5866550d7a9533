export interface InvoiceRow {
  number: string;
  client: string;
  amount: number;
  overdue: boolean;
}

export function InvoiceTable(props: { rows: InvoiceRow[] }) {
  return (
    <table>
      <tbody>
        {props.rows.map((row) => (
          <tr class={row.overdue ? "overdue" : undefined}>
            <td>{row.number}</td>
            <td>{row.client}</td>
            <td>{row.amount.toFixed(2)}</td>
            {row.overdue && <td>overdue</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
