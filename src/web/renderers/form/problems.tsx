import { Button } from 'antd-mobile';
import { createContext, useContext, useEffect, useRef, type ReactNode } from 'react';
import type { Schemas } from '../../../api/operations';
import { copyText } from '../../feedback/copy';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';

// A refused upload's problems, line by line (a quota CSV's bad lines, from the 40000 answer's `problems`): shown on the
// form under the field they are about (the screen's `problems.field`), not in a toast. The first PROBLEMS_SHOWN are
// listed in a box that scrolls on its own, with the total; 复制全部 copies every one of them, one line each.

export type LineProblem = Schemas['LineProblem'];

/** What a refused submission said: its one sentence and every problem it listed. */
export interface ProblemReport {
  message: string;
  problems: readonly LineProblem[];
}

/** How many problems the page lists; the rest are in 复制全部. */
export const PROBLEMS_SHOWN = 100;

/** Every problem as text, one a line: 第 N 行, the account and the reason, separated by tabs (pastes into a sheet). */
export const problemsText = (problems: readonly LineProblem[]): string =>
  problems.map((p) => [w.form.problems.lineNumber(p.line), p.account, p.reason].join('\t')).join('\n');

export function ProblemList({ report }: { report: ProblemReport }) {
  const words = w.form.problems;
  const box = useRef<HTMLElement>(null);
  const total = report.problems.length;
  const shown = report.problems.slice(0, PROBLEMS_SHOWN);
  // The list appears above the submit button that was just tapped: brought into sight, clear of the page's header
  // (jsdom has no scrolling).
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [report]);
  return (
    <section className="form-problems" ref={box} aria-label={words.region}>
      <div role="alert" className="form-problems-message">
        {report.message}
      </div>
      <div className="form-problems-bar">
        <span className="form-problems-count">{words.count(total, shown.length)}</span>
        <Button
          size="small"
          color="primary"
          fill="outline"
          onClick={() =>
            void copyText(problemsText(report.problems), { done: words.copied(total), failed: words.copyFailed })
          }
        >
          {words.copyAll}
        </Button>
      </div>
      {/* A box that scrolls on its own takes the focus, so a keyboard scrolls it too (WCAG 2.1.1). */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- see above */}
      <div className="form-problems-scroll" role="group" aria-label={words.table} tabIndex={0}>
        <table className="form-problems-table">
          <colgroup>
            <col className="form-problems-line" />
            <col className="form-problems-account" />
            <col />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">{words.line}</th>
              <th scope="col">{words.account}</th>
              <th scope="col">{words.reason}</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((p, i) => (
              <tr key={i}>
                <td>{words.lineNumber(p.line)}</td>
                <td>{p.account === '' ? words.noAccount : p.account}</td>
                <td>{p.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** What the field template shows under a field: the problems listed about it, if any. */
export const FieldProblems = createContext<Readonly<Record<string, ReactNode>>>({});

export const useFieldProblems = (name: string): ReactNode => useContext(FieldProblems)[name];
